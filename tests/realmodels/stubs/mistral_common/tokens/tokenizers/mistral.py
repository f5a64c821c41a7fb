"""The Mistral tokenizer, imported for annotations only."""


class MistralTokenizer:
    pass
