#!/usr/bin/env python3
"""bench-sync.py — freshness measurement of scripts/bench-sync.sh (standard library only).

  bench-sync.py freshness SHIM_URL N
      Makes N direct edits of every kind in WordPress (wp/v2, as the administrator of wp.env, read from
      the environment) at random moments and measures how long each takes to show in calshim
      (SHIM_URL); prints one line per kind with p50, p95 and max, and the p95 over all edits.
"""
import base64
import json
import os
import random
import sys
import time
import urllib.parse
import urllib.request


WP = os.environ.get("WP_URL", "")
AUTH = "Basic " + base64.b64encode(
    (os.environ.get("WP_ADMIN_USER", "") + ":" + os.environ.get("WP_ADMIN_APP_PASSWORD", "")).encode()).decode()


def wp(method, path, body=None):
    req = urllib.request.Request(WP + "/wp-json" + path, method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Authorization": AUTH, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as res:
        return json.loads(res.read() or b"null")


def shim_get(base, path):
    try:
        with urllib.request.urlopen(base + "/wp-json/cal/events/v1" + path, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def until(base, path, cond, limit=10.0):
    """Seconds until cond(status, body) holds for calshim's answer to path (None past limit)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        status, body = shim_get(base, path)
        if cond(status, body):
            return time.monotonic() - t0
        time.sleep(0.01)
    return None


def event_body(title, status="publish"):
    day = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 5 * 86400))
    return {"title": title, "status": status,
            "meta": {"_EventStartDate": day + " 10:00:00", "_EventEndDate": day + " 11:00:00",
                     "_EventStartDateUTC": day + " 15:00:00", "_EventEndDateUTC": day + " 16:00:00"}}


def freshness(base, n):
    ev = wp("POST", "/wp/v2/tribe_events", event_body("Bench Freshness"))["id"]
    venue = wp("POST", "/wp/v2/tribe_venue", {"title": "Bench Venue", "status": "publish"})["id"]
    org = wp("POST", "/wp/v2/tribe_organizer", {"title": "Bench Organizer", "status": "publish"})["id"]
    cat = wp("POST", "/wp/v2/tribe_events_cat", {"name": "Bench Category"})["id"]
    until(base, "/events/%d" % ev, lambda s, b: s == 200, 30)
    results = {}

    def measure(kind, change, path, cond):
        time.sleep(random.uniform(0, 1.0))  # edits at random moments against the poll's phase
        change()
        took = until(base, path, cond)
        results.setdefault(kind, []).append(took if took is not None else float("inf"))

    for i in range(n):
        measure("event title", lambda: wp("POST", "/wp/v2/tribe_events/%d" % ev, {"title": "Bench %d" % i}),
                "/events/%d" % ev, lambda s, b: s == 200 and b.get("title") == "Bench %d" % i)
        hour = "%02d" % (8 + i % 10)
        day = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 5 * 86400))
        measure("event meta (start)", lambda: wp("POST", "/wp/v2/tribe_events/%d" % ev, {"meta": {
            "_EventStartDate": day + " " + hour + ":00:00", "_EventStartDateUTC": day + " 03:00:00"}}),
            "/events/%d" % ev, lambda s, b: s == 200 and b.get("start_date", "").endswith(hour + ":00:00"))
        measure("status draft", lambda: wp("POST", "/wp/v2/tribe_events/%d" % ev, {"status": "draft"}),
                "/events/%d" % ev, lambda s, b: s != 200)
        measure("status publish", lambda: wp("POST", "/wp/v2/tribe_events/%d" % ev, {"status": "publish"}),
                "/events/%d" % ev, lambda s, b: s == 200)
        measure("trash", lambda: wp("DELETE", "/wp/v2/tribe_events/%d" % ev),
                "/events/%d" % ev, lambda s, b: isinstance(b, dict) and b.get("code") == "event-no-longer-available")
        measure("untrash (publish)", lambda: wp("POST", "/wp/v2/tribe_events/%d" % ev, {"status": "publish"}),
                "/events/%d" % ev, lambda s, b: s == 200)
        created = {}
        measure("create", lambda: created.update(wp("POST", "/wp/v2/tribe_events", event_body("Bench New %d" % i))),
                "/events?per_page=1&search=" + urllib.parse.quote("Bench New %d" % i),
                lambda s, b: s == 200 and b.get("total") == 1)
        measure("permanent delete", lambda: wp("DELETE", "/wp/v2/tribe_events/%d?force=true" % created["id"]),
                "/events/%d" % created["id"], lambda s, b: s == 404)
        measure("venue", lambda: wp("POST", "/wp/v2/tribe_venue/%d" % venue, {"title": "Bench Venue %d" % i}),
                "/venues/%d" % venue, lambda s, b: s == 200 and b.get("venue") == "Bench Venue %d" % i)
        measure("organizer", lambda: wp("POST", "/wp/v2/tribe_organizer/%d" % org, {"title": "Bench Org %d" % i}),
                "/organizers/%d" % org, lambda s, b: s == 200 and b.get("organizer") == "Bench Org %d" % i)
        measure("term rename", lambda: wp("POST", "/wp/v2/tribe_events_cat/%d" % cat, {"name": "Bench Cat %d" % i}),
                "/categories/%d" % cat, lambda s, b: s == 200 and b.get("name") == "Bench Cat %d" % i)
    wp("DELETE", "/wp/v2/tribe_events/%d?force=true" % ev)
    wp("DELETE", "/wp/v2/tribe_venue/%d?force=true" % venue)
    wp("DELETE", "/wp/v2/tribe_organizer/%d?force=true" % org)
    wp("DELETE", "/wp/v2/tribe_events_cat/%d?force=true" % cat)
    every = []
    for kind, xs in results.items():
        xs.sort()
        every += xs
        print("| %s | %d | %.3f | %.3f | %.3f |" % (kind, len(xs), xs[len(xs) // 2], pct(xs, 95), xs[-1]))
    every.sort()
    print("| all kinds | %d | %.3f | %.3f | %.3f |" % (len(every), every[len(every) // 2], pct(every, 95), every[-1]))


def pct(xs, p):
    return xs[min(len(xs) - 1, max(0, int(round(p / 100.0 * len(xs) + 0.5)) - 1))]


if __name__ == "__main__":
    if sys.argv[1] == "freshness":
        freshness(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
