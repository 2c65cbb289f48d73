"""Griffe extension of the API pages: a default that names a private constant shows its value.

The split options' defaults have one home, ``benchdesign.splitting.options.SPLIT_DEFAULTS``; signatures read
them as ``clusters: int | None = _D["clusters"]``, which the page would print as ``_D['clusters']``. This
extension evaluates such a default (a private name, or a subscript of one, in the defining module) and puts
its value, ``None`` or ``0.02``, in the rendered signature. Used by ``mkdocs.yml`` and by
``tests/test_api_docs.py``.
"""

from __future__ import annotations

import importlib
import re

import griffe

PRIVATE_DEFAULT = re.compile(r"^_\w+(\[[^\]]+\])?$")


def _value(module: str, expression: str) -> str | None:
    """``repr`` of ``expression`` evaluated in ``module``, or None when it is not a private constant."""
    if not PRIVATE_DEFAULT.match(expression):
        return None
    namespace = vars(importlib.import_module(module))
    return repr(eval(expression, {"__builtins__": {}}, namespace))  # noqa: S307 - a name or name[literal]


class PrivateDefaults(griffe.Extension):
    """Replace private-constant defaults of functions and dataclass fields by their values."""

    def on_function_instance(self, *, func: griffe.Function, **kwargs) -> None:
        for param in func.parameters:
            if param.default is not None:
                value = _value(func.module.path, str(param.default))
                if value is not None:
                    param.default = value

    def on_attribute_instance(self, *, attr: griffe.Attribute, **kwargs) -> None:
        if attr.parent is not None and attr.parent.is_class and attr.value is not None:
            value = _value(attr.module.path, str(attr.value))
            if value is not None:
                attr.value = value
