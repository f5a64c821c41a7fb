"""Stand-in for mistral_common (tests/realmodels): tokenizers are imported, never used."""
