"""Config dataclasses read from the settings: a field names its setting once
(`concurrency: int = setting("job_concurrency")`), which gives it that setting's one default
and tells `read_settings` where its value comes from, so no config copies the settings it
reads field by field."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field, fields
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from memory.core.settings import Settings

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

C = TypeVar("C", bound="DataclassInstance")

_SETTING = "setting"


def setting_default(name: str) -> Any:
    """A setting's one default, for the configs services take (so no default is written twice)."""
    if name not in Settings.model_fields:
        raise KeyError(f"no setting {name!r}")
    return Settings.model_fields[name].default


def setting(name: str, *, required: bool = False) -> Any:
    """A config field read from the setting `name`; its default is the setting's own unless
    `required` (the config is then never built without it)."""
    if required:
        return field(metadata={_SETTING: name})
    return field(default=setting_default(name), metadata={_SETTING: name})


def read_settings(config: type[C], settings: Settings, **computed: Any) -> C:
    """`config` with each `setting(...)` field read from `settings`; `computed`: the fields
    whose value is worked out from the settings rather than read as it is."""
    read = {
        item.name: getattr(settings, item.metadata[_SETTING])
        for item in fields(config)
        if _SETTING in item.metadata
    }
    return config(**read, **computed)


class FromSettings:
    """`Config.from_settings(settings)` for a config whose every field is a `setting(...)`:
    `read_settings` bound to the class it is read from, written once for all of them."""

    def __get__(self, instance: object, owner: type[C]) -> Callable[[Settings], C]:
        return partial(read_settings, owner)
