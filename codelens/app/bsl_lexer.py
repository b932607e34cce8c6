"""A Pygments lexer for 1C:Enterprise and OneScript (`.bsl`, `.os`): Pygments ships none.

Keywords in both their Russian and English forms, `//` comments, `"..."` strings (a `|` line
continues one), dates in single quotes, numbers, `&НаСервере` annotations and `#Область`
preprocessor lines.
"""

from __future__ import annotations

import re
from typing import ClassVar

from pygments.lexer import RegexLexer, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text

_KEYWORDS = (
    "Процедура", "КонецПроцедуры", "Функция", "КонецФункции", "Экспорт", "Перем", "Знач", "Возврат",
    "Если", "Тогда", "ИначеЕсли", "Иначе", "КонецЕсли", "Для", "Каждого", "Из", "По", "Цикл", "КонецЦикла",
    "Пока", "Прервать", "Продолжить", "Попытка", "Исключение", "КонецПопытки", "ВызватьИсключение", "Новый",
    "Выполнить", "Истина", "Ложь", "Неопределено", "И", "Или", "Не", "Асинх", "Ждать", "Перейти",
    "Procedure", "EndProcedure", "Function", "EndFunction", "Export", "Var", "Val", "Return", "If", "Then",
    "ElsIf", "Else", "EndIf", "For", "Each", "In", "To", "Do", "EndDo", "While", "Break", "Continue", "Try",
    "Except", "EndTry", "Raise", "New", "Execute", "True", "False", "Undefined", "And", "Or", "Not", "Async",
    "Await", "Goto",
)


class BslLexer(RegexLexer):
    name = "1C:Enterprise"
    aliases: ClassVar[list[str]] = ["bsl", "1c", "onescript"]
    filenames: ClassVar[list[str]] = ["*.bsl", "*.os"]
    flags = re.IGNORECASE | re.MULTILINE  # 1C's keywords are case-insensitive

    tokens: ClassVar[dict] = {
        "root": [
            (r"\s+", Text),
            (r"//.*?$", Comment.Single),
            (r"^\s*#.*?$", Comment.Preproc),
            (r"&\w+", Name.Decorator),
            (r'"', String, "string"),
            (r"'\d{8,14}'", String.Other),
            (r"\d+(\.\d+)?", Number),
            (words(_KEYWORDS, prefix=r"(?<![\w.])", suffix=r"(?!\w)"), Keyword),
            (r"\w+", Name),
            (r"[-+*/%=<>]", Operator),
            (r"[()\[\].,;:?~#]", Punctuation),
        ],
        "string": [
            (r'""', String.Escape),
            (r'"', String, "#pop"),
            (r'[^"]+', String),
        ],
    }
