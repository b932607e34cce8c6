"""1C:Enterprise modules (`.bsl`) and OneScript (`.os`): procedures and functions, Russian or English
keywords; a module is its file (`CommonModules/ОбщегоНазначения/Ext/Module.bsl`). `#Область` regions
and `&НаСервере` annotations are preprocessor nodes: no statements; an annotation belongs to the
definition below it."""

from __future__ import annotations

import re

from codelens.languages.model import FUNCTION, Conventions, Grammar, GraphRule, LanguageRow
from codelens.languages.shared import blank

_NOISE = (  # the global context's functions (Russian and English): never the codebase's
    "Сообщить", "СтрШаблон", "ТипЗнч", "Тип", "ЗначениеЗаполнено", "Строка", "Число", "Булево", "Дата", "Формат",
    "НСтр", "СтрДлина", "СтрНайти", "СтрЗаменить", "СтрРазделить", "СтрСоединить", "СтрНачинаетсяС",
    "СтрЗаканчиваетсяНа", "Лев", "Прав", "Сред", "ВРег", "НРег", "СокрЛ", "СокрП", "СокрЛП", "Мин", "Макс", "Окр",
    "ТекущаяДата", "ТекущаяДатаСеанса", "Вычислить", "Выполнить", "ПредопределенноеЗначение", "ОписаниеОшибки",
    "ИнформацияОбОшибке", "ПодробноеПредставлениеОшибки", "КраткоеПредставлениеОшибки", "НайтиФайлы",
    "УдалитьФайлы", "КопироватьФайл", "ПереместитьФайл", "СоздатьКаталог", "ОбъединитьПути", "ТекущийКаталог",
    "ПолучитьПеременнуюСреды", "УстановитьПеременнуюСреды", "ЗапуститьПриложение", "Приостановить",
    "Message", "StrTemplate", "TypeOf", "Type", "ValueIsFilled", "String", "Number", "Boolean", "Date", "Format",
    "NStr", "StrLen", "StrFind", "StrReplace", "StrSplit", "StrConcat", "Left", "Right", "Mid", "Upper", "Lower",
    "TrimL", "TrimR", "TrimAll", "Min", "Max", "Round", "CurrentDate", "Eval", "Execute", "ErrorDescription",
    "ErrorInfo", "FindFiles", "DeleteFiles", "CopyFile", "MoveFile", "CreateDirectory", "CombinePath",
)

# The methods of the platform's collections and streams (Массив, Структура, ТаблицаЗначений, ЗаписьXML...): a
# call of one on an object of unknown type is the platform's, never matched to the code by its name
_COLLECTION_METHODS = (
    "Добавить", "Вставить", "Количество", "Удалить", "Найти", "НайтиСтроки", "Очистить", "Получить", "Установить",
    "Свойство", "ВГраница", "Выгрузить", "ВыгрузитьКолонку", "Загрузить", "Сортировать", "Итог", "Скопировать",
    "Открыть", "Закрыть", "Прочитать", "Записать", "ЗаписатьНачалоЭлемента", "ЗаписатьКонецЭлемента",
    "Add", "Insert", "Count", "Delete", "Find", "FindRows", "Clear", "Get", "Set", "Property", "UBound", "Unload",
    "UnloadColumn", "Load", "Sort", "Total", "Copy", "Open", "Close", "Read", "Write",
)

# A procedure calls another of its module by name, and a common module's as `Модуль.Процедура()` (the module
# named as its file or its CommonModules folder); a call on an object of unknown type (`Сборщик.Собрать()`) is
# matched by a unique procedure name (uncertain)
RULE = GraphRule("bsl", (("method_call", ""),), (), (), "", self_words=("ЭтотОбъект", "ThisObject"), noise=_NOISE,
                 library_methods=_COLLECTION_METHODS, receiver_before=("access",), file_modules=True,
                 capitalised_types=False)

# OneScript's `#Использовать json` / `#Use json` (a bytes pattern: \b knows no Cyrillic, hence the lookahead)
# the first line's after a byte-order mark (OneScript's files mostly have one)
_ONESCRIPT_USE = re.compile("^(?:\ufeff)?[ \t]*#(?:Использовать|использовать|Use|use)(?=[ \t])[^\r\n]*".encode(), re.M)


def without_onescript_use(source: bytes) -> bytes:
    """OneScript's `#Использовать` lines blanked: the 1C grammar knows no such directive."""
    return _ONESCRIPT_USE.sub(blank, source)


def test_id(path: str, owner: str, name: str) -> str:
    """`ТестКорзины.ТестДобавления` (Vanessa/xUnitFor1C, OneScript's `oscript-testrunner`): module, procedure."""
    module = owner or path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return f"{module}.{name}"


LANGUAGE = LanguageRow(
    "bsl", (".bsl", ".os"), Grammar("tree-sitter-bsl", "tree_sitter_bsl"),
    definitions=(("procedure_definition", FUNCTION), ("function_definition", FUNCTION)),
    preamble=("preprocessor",), comments=("line_comment",), doc_prefixes=("//",), lead_prefixes=("&",),
    parser_bytes=without_onescript_use, graph=RULE,
    # 1C has no constants in code (a configuration's Constants are metadata); it throws with ВызватьИсключение
    conventions=Conventions(test_id=test_id, throws=("ВызватьИсключение", "Raise")),
)
