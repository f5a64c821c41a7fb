import logging

logger = logging.getLogger("torchair")
if not logger.handlers:
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("[%(levelname)s] TORCHAIR %(message)s"))
    logger.addHandler(_handler)
logger.propagate = False
