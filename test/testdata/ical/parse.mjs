// Reads an iCalendar feed on stdin with npm's ical.js and prints its events as JSON (used by
// test/ical_test.go). Timed instants are resolved through the feed's own VTIMEZONE components (each
// registered with ical.js' TimezoneService), printed in UTC; all-day events print their DATE values.
// Usage: node parse.mjs /path/to/node_modules/ical.js/dist/ical.js < feed.ics
import { readFileSync } from "node:fs";

const ICAL = (await import(process.argv[2])).default;
const comp = new ICAL.Component(ICAL.parse(readFileSync(0, "utf8")));
if (comp.name !== "vcalendar" || comp.getFirstPropertyValue("version") !== "2.0" ||
    !comp.getFirstPropertyValue("prodid")) {
  throw new Error("not a VCALENDAR 2.0 with a PRODID");
}

const zones = comp.getAllSubcomponents("vtimezone").map((vtz) => {
  const tz = new ICAL.Timezone(vtz);
  ICAL.TimezoneService.register(tz);
  return tz.tzid;
});

const pad = (n) => String(n).padStart(2, "0");
function when(prop) {
  const t = prop.getFirstValue();
  if (t.isDate) return [`${t.year}-${pad(t.month)}-${pad(t.day)}`, true];
  const tzid = prop.getParameter("tzid");
  if (tzid && t.zone.tzid !== tzid) throw new Error(`TZID ${tzid} has no VTIMEZONE`);
  if (!tzid && t.zone !== ICAL.Timezone.utcTimezone) throw new Error("floating date-time");
  const u = new Date(t.toUnixTime() * 1000).toISOString();
  return [u.slice(0, 10) + " " + u.slice(11, 19), false];
}

const events = comp.getAllSubcomponents("vevent").map((ve) => {
  for (const key of ["uid", "dtstamp", "summary", "last-modified", "status"]) {
    if (!ve.hasProperty(key)) throw new Error("VEVENT without " + key);
  }
  const [start, allDay] = when(ve.getFirstProperty("dtstart"));
  const [end] = when(ve.getFirstProperty("dtend"));
  const cats = ve.getAllProperties("categories").flatMap((p) => p.getValues());
  const org = ve.getFirstProperty("organizer");
  return {
    geo: ve.getFirstPropertyValue("geo") ?? null,
    organizer: org ? org.getFirstValue() : "",
    organizer_cn: org ? org.getParameter("cn") ?? "" : "",
    uid: ve.getFirstPropertyValue("uid"), summary: ve.getFirstPropertyValue("summary"),
    start, end, all_day: allDay, location: ve.getFirstPropertyValue("location") ?? "",
    categories: cats, description: ve.getFirstPropertyValue("description") ?? "",
    url: ve.getFirstPropertyValue("url") ?? "",
    properties: ve.getAllProperties().map((p) => p.name.toUpperCase()),
  };
});
const names = (c) => [c.name.toUpperCase(), ...c.getAllSubcomponents().flatMap(names)];
process.stdout.write(JSON.stringify({ events, timezones: zones, components: names(comp) }));
