"""whisper.decoding's entry points as whisper/model.py imports them: the
suite never decodes (no tokenizer)."""


def decode(model, mel, options=None, **kwargs):
    raise NotImplementedError("whisper decoding is not available in tests/realmodels")


def detect_language(model, mel, tokenizer=None):
    raise NotImplementedError("whisper language detection is not available in tests/realmodels")
