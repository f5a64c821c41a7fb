"""Stand-in for openai-whisper's package (tests/realmodels): the suite takes
whisper/model.py unchanged from the repository, and model.py imports its
siblings decoding and transcribe (stand-ins beside this file); the package's
own __init__ (model download, audio loading) is not needed."""
