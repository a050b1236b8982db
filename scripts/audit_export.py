#!/usr/bin/env python3
"""Export the audit trail of kobana-mcp for an auditor: one JSON object per line.

    scripts/audit_export.py --table TABLE [--organization ORG] [--since ISO] [--until ISO]

With --organization, that organization's entries newest first (one Query on the index
`by_organization`, followed page by page); without it, every entry of the table, in no
particular order (a Scan), entries under no organization included: writes Kobana refused
with 401 and entries never completed (outcome `unknown`, see `completed_at`). --since and
--until (ISO 8601 instants, UTC if no offset is given) narrow the window by the entry's id,
which starts with its Unix milliseconds.

Entries hold no personal data: the summary keeps ids, amounts, dates and enum values only
(shared/src/audit/summary.rs). Credentials, region and endpoint come from the usual AWS
settings (`AWS_PROFILE`, `AWS_REGION`, `AWS_ENDPOINT_URL_DYNAMODB`...). Needs boto3.
"""

import argparse
import datetime
import decimal
import json
import sys

import boto3
from boto3.dynamodb.conditions import Attr, Key

INDEX = "by_organization"
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def millis(text):
    """An ISO 8601 instant as Unix milliseconds."""
    at = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if at.tzinfo is None:
        at = at.replace(tzinfo=datetime.timezone.utc)
    return (at - EPOCH) // datetime.timedelta(milliseconds=1)


def plain(value):
    """DynamoDB's Decimals as ints (or floats), recursively."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def pages(call, **request):
    """Every item of a paginated Query or Scan."""
    while True:
        page = call(**request)
        yield from page.get("Items", [])
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", required=True, help="the stack's AuditTableName output")
    parser.add_argument("--organization", help="only this organization's entries")
    parser.add_argument("--since", help="from this instant (ISO 8601)")
    parser.add_argument("--until", help="until this instant, inclusive (ISO 8601)")
    args = parser.parse_args(argv)

    low = "%013d" % millis(args.since) if args.since else "0"
    high = ("%013d" % millis(args.until) if args.until else "9" * 13) + "~"
    table = boto3.resource("dynamodb").Table(args.table)
    if args.organization:
        items = pages(
            table.query,
            IndexName=INDEX,
            KeyConditionExpression=Key("organization").eq(args.organization)
            & Key("id").between(low, high),
            ScanIndexForward=False,
        )
    else:
        items = pages(table.scan, FilterExpression=Attr("id").between(low, high))
    count = 0
    for item in items:
        sys.stdout.write(json.dumps(plain(item), ensure_ascii=False, sort_keys=True) + "\n")
        count += 1
    print(f"audit_export: {count} entries", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
