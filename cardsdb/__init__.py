"""Cards, decks, rules versions and scenarios as data: pydantic models, YAML files per game, and
the loader that turns bad data into one-line errors naming the file, the card and the field."""
