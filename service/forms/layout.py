"""The short form: the essential inputs first, every other section folded under "advanced".

Which inputs are essential is the fields' own marker (``field(..., essential=True)`` in the
scenario schema, read through ``field_meta``); this module only arranges the generated fields
and counts, for each group, how many values differ from the defaults.
"""
from __future__ import annotations

from dataclasses import dataclass

from service.forms.scenario import GENERAL, FormRow, FormSection, RowTable


@dataclass
class Group(FormSection):
    """A section of the short form: a form section plus what the folded view counts."""

    @property
    def changed(self) -> int:
        return sum(1 for f in self.all_fields if f.changed)

    @property
    def invalid(self) -> bool:
        return bool(self.errors) or any(f.error for f in self.all_fields)


@dataclass
class Layout:
    essentials: Group
    advanced: list[Group]

    @property
    def advanced_changed(self) -> int:
        return sum(g.changed for g in self.advanced)


def arrange(sections: list[FormSection]) -> Layout:
    """Essentials (in schema order) and the advanced sections with what is left of them."""
    essentials = Group("essentials", "Essentials")
    advanced: list[Group] = []
    for section in sections:
        rest = Group(section.key, section.title, errors=list(section.errors))
        for spec in section.fields:
            (essentials.fields if spec.essential else rest.fields).append(spec)
        for table in section.tables:
            rest_table = RowTable(table.spec, table.title, table.help,
                                  template=table.template)
            for row in table.rows:
                essentials.fields.extend(f for f in row.fields if f.essential)
                rest_table.rows.append(FormRow(row.index,
                                               [f for f in row.fields if not f.essential],
                                               row.blank))
            rest.tables.append(rest_table)
        if section.key == GENERAL:
            essentials.errors.extend(rest.errors)
            continue
        if rest.fields or rest.tables or rest.errors:
            advanced.append(rest)
    return Layout(essentials, advanced)
