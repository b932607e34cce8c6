"""The Precision@5 tab: the bundled questions file that fits the index (or an uploaded one) run
through the same search, written as results.json (what `python score.py` scores), and shown as
the mean metrics, a chart and a table per question.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import streamlit as st

from codelens.app.ui import QUESTIONS_NAME, evaluation_frame, questions_for_index, results_path
from codelens.errors import CodeLensError
from codelens.evaluation import load_questions, parse_questions_file, score_predictions, summarize
from codelens.open_index import OpenIndex

EVAL_K = 5
LANG_LABELS = {"ru": "русский", "en": "английский"}

log = logging.getLogger("codelens.app")


def render_evaluation_tab(index: OpenIndex, index_dir: Path) -> None:
    """Run the questions on a click; show the last run of this session."""
    bundled_questions, questions_note = questions_for_index(index)
    results_file = results_path(index_dir)
    st.markdown(
        f"Каждый вопрос из `{bundled_questions.name if bundled_questions else QUESTIONS_NAME}` (или вашего файла "
        "в том же формате) проходит через тот же "
        "поиск. **Precision@5** = правильные фрагменты в топ-5 / min(5, число правильных). "
        f"Результат пишется в `{results_file}` (формат results.json, как у `python -m codelens eval`) — его же "
        "считает `python score.py`."
    )
    if questions_note:
        (st.info if bundled_questions else st.warning)(questions_note)
    uploaded = st.file_uploader("Свой файл вопросов (необязательно)", type=["json"])
    if st.button("▶ Запустить оценку", type="primary", disabled=uploaded is None and bundled_questions is None):
        try:
            if uploaded is not None:
                questions = parse_questions_file(uploaded.getvalue(), uploaded.name)
            else:
                questions = load_questions(bundled_questions)
            bar = st.progress(0.0, text="Оценка…")
            results = index.evaluate(
                questions, EVAL_K,
                on_progress=lambda done, total: bar.progress(done / total, text=f"Вопрос {done} из {total}"),
            )
            bar.empty()
            results_file.write_text(json.dumps(results, ensure_ascii=False, indent=2), encoding="utf-8")
            st.session_state["evaluation"] = {"results": results, "questions": questions,
                                              "written_to": str(results_file.resolve())}
        except CodeLensError as exc:
            st.error(f"Оценка не выполнена: {exc}")
        except OSError as exc:
            st.error(f"Не удалось записать {results_file}: {exc}")
        except Exception as exc:  # the page shows a message, never a traceback
            log.exception("evaluation failed")
            st.error(f"Оценка не выполнена ({type(exc).__name__}): {exc}")

    evaluation = st.session_state.get("evaluation")
    if evaluation:
        results = evaluation["results"]
        scores = score_predictions(results, evaluation["questions"], EVAL_K)
        summary = summarize(scores)
        overall = summary["overall"]
        columns = st.columns(2 + len(summary["per_language"]) + 1)
        columns[0].metric("Средний P@5", f"{overall['precision_at_5']:.2f}", help=f"{overall['questions']} вопросов")
        languages = sorted(summary["per_language"].items(), key=lambda item: item[0] != "ru")  # Russian first
        for column, (lang, group) in zip(columns[1:], languages, strict=False):
            column.metric(f"P@5 · {LANG_LABELS.get(lang, lang)}", f"{group['precision_at_5']:.2f}",
                          help=f"{group['questions']} вопросов")
        columns[-2].metric("Hit@5", f"{overall['hit_at_5']:.2f}")
        columns[-1].metric("MRR@5", f"{overall['mrr_at_5']:.2f}")
        frame = evaluation_frame(scores, results)
        st.bar_chart(frame, x="ID", y="P@5", color="Язык", y_label="P@5", x_label="вопрос", height=260)
        st.dataframe(frame, hide_index=True, column_config={
            "ID": st.column_config.TextColumn("ID", width="small"),
            "Вопрос": st.column_config.TextColumn("Вопрос", width="large"),
            "Язык": st.column_config.TextColumn("Язык", width="small"),
            "P@5": st.column_config.ProgressColumn("P@5", min_value=0.0, max_value=1.0, format="%.2f", width="small"),
            "Ранг 1-го верного": st.column_config.NumberColumn("Ранг 1-го верного", format="%d", width="small"),
            "Топ-5 (✓ верный)": st.column_config.ListColumn("Топ-5 (✓ верный)", width="large"),
            "Правильные ответы": st.column_config.ListColumn("Правильные ответы", width="medium"),
            "мс": st.column_config.NumberColumn("мс", format="%.0f", width="small"),
        })
        latencies = sorted(r["latency_ms"] for r in results["results"])
        st.caption(f"Записано в `{evaluation['written_to']}` · модель `{results['model']}` · k={results['k']} · "
                   f"медианная задержка {latencies[len(latencies) // 2]:.0f} мс")
        st.download_button("Скачать results.json", json.dumps(results, ensure_ascii=False, indent=2),
                           file_name="results.json", mime="application/json", icon=":material/download:")
