"""The public functions and methods of models/, as the docstring and Notes tests read them."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import models


def modules():
    return [importlib.import_module(f"models.{info.name}")
            for info in pkgutil.iter_modules(models.__path__)]


def public_api():
    """(qualified name, object) of every public function of models/ and every public method,
    property, class- or static method of its public classes, where they are defined."""
    found = []
    for module in modules():
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj):
                found.append((f"{module.__name__}.{name}", obj))
            elif inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    if isinstance(member, (classmethod, staticmethod)):
                        member = member.__func__
                    if inspect.isfunction(member) or isinstance(member, property):
                        found.append((f"{module.__name__}.{name}.{attr}", member))
    return sorted(found, key=lambda item: item[0])
