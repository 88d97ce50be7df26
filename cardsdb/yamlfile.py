"""Reading a designer's YAML: safe (no tags that run code), UTF-8 only, and strict about
duplicate keys. PyYAML keeps the last of two equal keys without a word, so a card written with
``atk: 3`` and, further down, ``atk: 9`` would silently play with 9; here it is an error naming
the line of the second one."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError

from cardsdb.errors import DataError

# libyaml's parser (PyYAML's C extension) reads a card file about 10x faster than the pure-Python
# one; the constructing, where the safety and the duplicate check live, is Python either way
SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class UniqueKeyLoader(SafeBase):
    """The safe loader, refusing a mapping that names the same key twice."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, Any] = {}
            for key_node, _value in node.value:  # the keys written here: a merged (<<) one may be overridden
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=deep)
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: the base class says so in its own words
                    break
                if first is not None:
                    raise ConstructorError(
                        None, None, f"key {key!r} appears twice in one mapping "
                        f"(first on line {first.start_mark.line + 1})", key_node.start_mark)
                seen[key] = key_node
        return super().construct_mapping(node, deep=deep)


def parse_yaml(text: str, name: str | Path) -> Any:
    """The YAML document in ``text``; DataError naming ``name``, the line and the problem."""
    try:
        return yaml.load(text, Loader=UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise DataError(name, f"bad YAML: {where}{problem}") from None
    except RecursionError:
        raise DataError(name, "bad YAML: lists or mappings nested too deeply") from None


def read_text(path: str | Path, name: str | Path | None = None) -> str:
    """A data file's text: UTF-8 only (a file saved as Latin-1 or UTF-16 names itself).
    ``name``: the file as errors show it (default: the path)."""
    path = Path(path)
    name = name or path
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise DataError(name, "is a folder, not a file") from None
    except FileNotFoundError as exc:
        if path.is_symlink():  # the link is there, its file is not (moved or deleted)
            raise DataError(name, f"a link to a file that is not there ({_target(path)}): "
                            "remove the link or restore its file") from None
        raise DataError(name, f"cannot read: {exc.strerror}") from None
    except OSError as exc:
        raise DataError(name, f"cannot read: {exc.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise DataError(name, f"not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); "
                        "save the file as UTF-8") from None


def read_yaml(path: str | Path, name: str | Path | None = None) -> Any:
    """The YAML document in a file (DataError naming the file when it cannot be read)."""
    return parse_yaml(read_text(path, name), name or path)


def _target(link: Path) -> str:
    try:
        return str(link.readlink())
    except OSError:
        return "unreadable"
