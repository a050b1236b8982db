#!/usr/bin/env python3
"""Checks shared/data/schemas.json, the schema catalog served by billing_schemas_*.

Stdlib only. Run from the repository root or anywhere:
    python3 shared/data/check_schemas.py
"""

import json
import os
import sys

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas.json")

RESOURCES = ["customers", "billing_accounts", "plans", "products", "subscriptions", "invoices",
             "payments", "nfes"]
TYPES = {"uuid", "string", "int", "number", "bool", "date", "datetime", "object", "array", "enum"}
FIELD_KEYS = {"name", "type", "nullable", "sortable", "meaning"}
RESOURCE_KEYS = {"name", "title", "kobana_schema", "description", "default_sort", "proposed", "fields"}

# Reference §3.6; billing_accounts, plans and products: their dates (and names), the fields
# Kobana's own lists show as sortable columns (the document names no list of sort fields).
SORTABLE = {
    "customers": {"created_at", "updated_at", "name"},
    "billing_accounts": {"created_at", "updated_at"},
    "plans": {"created_at", "updated_at", "name"},
    "products": {"created_at", "updated_at", "name", "display_order"},
    "subscriptions": {"created_at", "updated_at", "current_period_end", "cycle_billing_date",
                      "recurring_amount_cents", "status"},
    "invoices": {"created_at", "updated_at", "due_date", "paid_at", "total_subcents",
                 "amount_remaining_cents", "number", "status"},
    "payments": {"created_at", "updated_at", "paid_at", "amount_cents", "status"},
    "nfes": {"created_at", "updated_at", "issue_date", "nfe_number", "amount_cents", "status"},
}


def nonempty_str(value):
    return isinstance(value, str) and value.strip() != ""


def check(doc):
    assert set(doc) == {"version", "money", "dates", "resources"}, f"top-level keys: {sorted(doc)}"
    assert doc["version"] == 1, "version must be 1"
    assert nonempty_str(doc["money"]) and nonempty_str(doc["dates"]), "money/dates sentences"

    names = [r.get("name") for r in doc["resources"]]
    assert names == RESOURCES, f"resources must be {RESOURCES}, got {names}"

    counts = {}
    for res in doc["resources"]:
        rn = res["name"]
        assert set(res) == RESOURCE_KEYS, f"{rn}: resource keys {sorted(res)}"
        for key in ("title", "kobana_schema", "description"):
            assert nonempty_str(res[key]), f"{rn}: empty {key}"
        assert isinstance(res["proposed"], bool), f"{rn}: proposed must be bool"
        assert res["proposed"] is False, f"{rn}: every resource is read from Kobana's document"
        assert isinstance(res["fields"], list) and res["fields"], f"{rn}: no fields"

        seen = set()
        for f in res["fields"]:
            fn = f.get("name")
            where = f"{rn}.{fn}"
            missing = FIELD_KEYS - set(f)
            assert not missing, f"{where}: missing keys {sorted(missing)}"
            extra = set(f) - FIELD_KEYS - {"values"}
            assert not extra, f"{where}: unexpected keys {sorted(extra)}"
            assert nonempty_str(fn), f"{rn}: field without a name"
            assert fn not in seen, f"{where}: duplicate field"
            seen.add(fn)
            assert f["type"] in TYPES, f"{where}: invalid type {f['type']!r}"
            assert isinstance(f["nullable"], bool), f"{where}: nullable must be bool"
            assert isinstance(f["sortable"], bool), f"{where}: sortable must be bool"
            assert nonempty_str(f["meaning"]), f"{where}: empty meaning"
            if f["type"] == "enum":
                values = f.get("values")
                assert isinstance(values, list) and values, f"{where}: enum without values"
                vseen = set()
                for v in values:
                    assert set(v) == {"value", "meaning"}, f"{where}: value keys {sorted(v)}"
                    assert nonempty_str(v["value"]) and nonempty_str(v["meaning"]), f"{where}: empty value/meaning"
                    assert v["value"] not in vseen, f"{where}: duplicate value {v['value']}"
                    vseen.add(v["value"])
            else:
                assert "values" not in f, f"{where}: values on a non-enum field"

        sortable = {f["name"] for f in res["fields"] if f["sortable"]}
        assert sortable == SORTABLE[rn], (
            f"{rn}: sortable {sorted(sortable)} != expected {sorted(SORTABLE[rn])}")
        assert SORTABLE[rn] <= seen, f"{rn}: sortable fields missing: {sorted(SORTABLE[rn] - seen)}"

        ds = res["default_sort"]
        assert ds == {"field": "created_at", "order": "desc"}, f"{rn}: default_sort {ds}"
        assert ds["field"] in sortable, f"{rn}: default sort field not sortable"
        counts[rn] = len(res["fields"])
    return counts


def main():
    with open(PATH, encoding="utf-8") as fh:
        doc = json.load(fh)
    counts = check(doc)
    size = os.path.getsize(PATH)
    print(f"ok: {PATH} ({size} bytes)")
    for name, n in counts.items():
        print(f"  {name}: {n} fields")
    return 0


if __name__ == "__main__":
    sys.exit(main())
