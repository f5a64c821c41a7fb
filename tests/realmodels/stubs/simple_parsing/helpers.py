"""simple_parsing.helpers.Serializable as a plain base class: the model files
derive their dataclass configs from it and the suite never (de)serialises."""


class Serializable:
    pass
