"""Reads an iCalendar feed on stdin with Debian's python3-icalendar and prints its events as JSON.

Timed instants are resolved by icalendar from the TZID (its own time zone database, not the feed's
VTIMEZONE), printed in UTC; all-day events print their DATE values. Used by test/ical_test.go.
"""
import datetime
import json
import sys

import icalendar

cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
if cal.name != "VCALENDAR" or str(cal.get("VERSION")) != "2.0" or not cal.get("PRODID"):
    sys.exit("not a VCALENDAR 2.0 with a PRODID")


def when(value):
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            sys.exit("floating date-time %s" % value)
        return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S"), False
    return value.strftime("%Y-%m-%d"), True


events = []
for ev in cal.walk("VEVENT"):
    start, all_day = when(ev.decoded("DTSTART"))
    end, _ = when(ev.decoded("DTEND"))
    cats = []
    for c in ev.get("CATEGORIES", []) if isinstance(ev.get("CATEGORIES"), list) else [ev.get("CATEGORIES")]:
        if c is not None:
            cats += [str(x) for x in c.cats]
    for key in ("UID", "DTSTAMP", "SUMMARY", "LAST-MODIFIED", "STATUS"):
        if key not in ev:
            sys.exit("VEVENT without " + key)
    geo = ev.get("GEO")
    org = ev.get("ORGANIZER")
    events.append({
        "geo": [geo.latitude, geo.longitude] if geo is not None else None,
        "organizer": str(org) if org is not None else "",
        "organizer_cn": str(org.params.get("CN", "")) if org is not None else "",
        "uid": str(ev["UID"]), "summary": str(ev["SUMMARY"]), "start": start, "end": end,
        "all_day": all_day, "location": str(ev.get("LOCATION", "")), "categories": cats,
        "description": str(ev.get("DESCRIPTION", "")), "url": str(ev.get("URL", "")),
        "properties": [name for name, _ in ev.property_items(recursive=False)][1:-1],
    })
json.dump({"events": events, "timezones": [str(tz["TZID"]) for tz in cal.walk("VTIMEZONE")],
           "components": [c.name for c in cal.walk()]}, sys.stdout)
