"""Prompt formats: the GGUF's own template, a plain fallback, templates without a system turn."""


def test_plain_fallback_and_templates_without_a_system_turn():
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    from simulacra.llm.llama import _PLAIN_TEMPLATE, LlamaCppModel

    plain = Jinja2ChatFormatter(_PLAIN_TEMPLATE, eos_token="</s>", bos_token="<s>")
    rendered = plain(
        messages=[{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
    ).prompt
    assert rendered == "System:\nS\n\nUser:\nU\n\nAssistant:\n"

    # Like Gemma's: refuses a system turn, so the system text joins the user turn.
    strict = Jinja2ChatFormatter(
        "{% for m in messages %}{% if m['role'] == 'system' %}"
        "{{ raise_exception('System role not supported') }}{% endif %}"
        "<turn>{{ m['content'] }}</turn>{% endfor %}",
        eos_token="</s>",
        bos_token="<s>",
    )
    model = LlamaCppModel.__new__(LlamaCppModel)
    model._llm, model._format = object(), strict  # a loaded model, as far as render knows
    assert model.render("S", "U") == "<turn>S\n\nU</turn>"
