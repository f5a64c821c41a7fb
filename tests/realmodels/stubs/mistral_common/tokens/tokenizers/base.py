"""The tokenizer base class, imported for annotations only."""


class Tokenizer:
    pass
