package main

import "strings"

// Step is one call of the write sequence. Path and Body may hold placeholders: {{name}} is the ID
// of the object created by step name, {{name.slug}} its slug, {{seed.kind.key}} an ID of the seed
// (seed-ids.json). Body is JSON unless Form is set (then a PHP-style form body).
type Step struct {
	Name       string
	Role       string
	Method     string
	Path       string
	Body       string
	Form       bool
	Deliberate string   // a docs/compatibility.md difference this step exercises: its differences are expected
	Taints     []string // steps whose created object's stored state that deliberate difference changes
}

const (
	d1 = "2027-03-01 10:00:00"
	d2 = "2027-03-01 12:00:00"
)

// fullEvent is an event body with every field, so that an update through the original (which resets
// what is omitted) and through calshim (which keeps it) must store the same.
func fullEvent(title, extra string) string {
	return `{"title":"` + title + `","description":"<p>` + title + ` body</p>","excerpt":"ex",` +
		`"status":"publish","timezone":"Europe/Paris","all_day":false,` +
		`"start_date":"2027-05-10 18:00:00","end_date":"2027-05-10 21:30:00",` +
		`"image":"{{seed.media.stage}}","cost":"12.50",` +
		`"website":"https://example.org/` + title[:4] + `",` +
		`"show_map":true,"show_map_link":true,"hide_from_listings":false,"sticky":false,` +
		`"featured":false,"categories":[{{seed.categories.technology}}],"tags":[{{seed.tags.online}}],` +
		`"venue":{{seed.venues.moscone}},"organizer":[{{seed.organizers.techcon}}]` + extra + `}`
}

// writeSteps is the write sequence: creations (plain, full, nested linked posts, terms by name and
// by ID, form bodies), refusals, updates by ID and slug with each method, deletions; then venues,
// organizers, categories and tags.
func writeSteps() []Step {
	var s []Step
	s = append(s, eventCreates()...)
	s = append(s, eventRefusals()...)
	s = append(s, eventUpdates()...)
	s = append(s, eventDeletes()...)
	s = append(s, linkedSteps("venue", "venues", `"venue":"Harness Hall B","address":"2 Test St",`+
		`"description":"<p>Hall B</p>","date":"2026-10-02 08:00:00","author":{{user.author}},`+
		`"city":"Testville","country":"France","province":"IDF","zip":"75002","phone":"+33 1 23",`+
		`"website":"https://hallb.example","show_map":"1","show_map_link":"0"`)...)
	s = append(s, linkedSteps("organizer", "organizers", `"organizer":"Harness Org B",`+
		`"description":"Org B","date_utc":"2026-10-02 08:00:00",`+
		`"phone":"555-0100","website":"https://orgb.example","email":"orgb@example.org"`)...)
	s = append(s, termSteps("category", "categories", `,"parent":{{seed.categories.music}}`)...)
	s = append(s, termSteps("tag", "tags", "")...)

	return s
}

func eventCreates() []Step {
	return []Step{
		{Name: "ev_min", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness Minimal","start_date":"` + d1 + `","end_date":"` + d2 + `"}`},
		{Name: "ev_full", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness Full","description":"<p>All fields</p>","excerpt":"Short",` +
				`"status":"publish","timezone":"Europe/Paris","all_day":false,` +
				`"start_date":"2027-03-02 19:00:00","end_date":"2027-03-02 22:00:00",` +
				`"image":"{{seed.media.stage}}","cost":"15","website":"https://example.org/full",` +
				`"show_map":true,"show_map_link":false,"hide_from_listings":false,"sticky":true,` +
				`"featured":true,"categories":[{{seed.categories.music}},{{seed.categories.jazz}}],` +
				`"tags":[{{seed.tags.outdoor}}],"venue":{{seed.venues.bluenote}},` +
				`"organizer":[{{seed.organizers.jazzsoc}},{{seed.organizers.techcon}}],` +
				`"date":"2026-10-01 09:00:00"}`},
		{Name: "ev_nested", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness Nested","status":"draft","start_date":"2027-03-03 09:00:00",` +
				`"end_date":"2027-03-03 17:00:00","venue":{"venue":"Harness Hall","address":"1 Test St",` +
				`"city":"Testville","country":"France","zip":"75001","phone":"+33 1",` +
				`"website":"https://hall.example"},"organizer":[{"organizer":"Harness Org",` +
				`"email":"org@example.org","phone":"123"},{{seed.organizers.parks}}],` +
				`"categories":["Family"]}`},
		{Name: "ev_allday", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness All Day","all_day":true,"timezone":"America/New_York",` +
				`"start_date":"2027-04-01 00:00:00","end_date":"2027-04-02 23:59:59","cost":"Free"}`},
		{Name: "ev_endbefore", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness Backwards","timezone":"Asia/Tokyo",` +
				`"start_date":"2027-04-05 18:00:00","end_date":"2027-04-05 09:00:00"}`},
		{Name: "ev_utcoffset", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness Offset","timezone":"UTC+5.5",` +
				`"start_date":"2027-04-06 18:00:00","end_date":"2027-04-06 19:00:00"}`},
		{Name: "ev_newterms", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness New Terms","start_date":"2027-04-07 10:00:00",` +
				`"end_date":"2027-04-07 11:00:00","categories":["Harness Fresh Cat"],` +
				`"tags":["harness-fresh-tag"]}`},
		{Name: "ev_tagname", Role: "admin", Method: "POST", Path: "/events", Deliberate: "tag-by-name",
			Taints: []string{"ev_tagname"},
			Body: `{"title":"Harness Tag Name","start_date":"2027-04-08 10:00:00",` +
				`"end_date":"2027-04-08 11:00:00","tags":["free"]}`},
		{Name: "ev_form", Role: "admin", Method: "POST", Path: "/events", Form: true,
			Body: `title=Harness+Form&start_date=2027-04-09+10%3A00%3A00&end_date=2027-04-09+12%3A00%3A00` +
				`&venue[venue]=Form+Venue&venue[city]=Lyon&organizer[]={{seed.organizers.sydarts}}` +
				`&categories[]={{seed.categories.technology}}&featured=1`},
		{Name: "ev_author", Role: "author", Method: "POST", Path: "/events",
			Body: `{"title":"Harness By Author","status":"publish","start_date":"2027-04-10 10:00:00",` +
				`"end_date":"2027-04-10 11:00:00","venue":{{seed.venues.rfh}}}`},
		{Name: "ev_contrib", Role: "contributor", Method: "POST", Path: "/events",
			Body: `{"title":"Harness By Contributor","status":"pending",` +
				`"start_date":"2027-04-11 10:00:00","end_date":"2027-04-11 11:00:00"}`},
		{Name: "ev_contrib_newcat", Role: "contributor", Method: "POST", Path: "/events",
			Deliberate: "contributor-new-terms", Taints: []string{"ev_contrib_newcat"},
			Body: `{"title":"Harness Contributor Cat","status":"draft","start_date":"2027-04-12 10:00:00",` +
				`"end_date":"2027-04-12 11:00:00","categories":["Harness Contributor Cat"]}`},
	}
}

func eventRefusals() []Step {
	ok := `{"title":"Harness Refused","start_date":"` + d1 + `","end_date":"` + d2 + `"}`

	return []Step{
		{Name: "ev_anon", Role: "anon", Method: "POST", Path: "/events", Body: ok},
		{Name: "ev_subscriber", Role: "subscriber", Method: "POST", Path: "/events", Body: ok},
		{Name: "ev_badpass", Role: "badpass", Method: "POST", Path: "/events", Body: ok},
		{Name: "ev_no_title", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"start_date":"` + d1 + `","end_date":"` + d2 + `"}`},
		{Name: "ev_no_dates", Role: "admin", Method: "POST", Path: "/events", Body: `{"title":"X"}`},
		{Name: "ev_bad_values", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness Bad","start_date":"garbage","end_date":"` + d2 + `",` +
				`"all_day":"maybe","status":"bogus"}`},
		{Name: "ev_bad_venue", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness Bad Venue","start_date":"` + d1 + `","end_date":"` + d2 + `",` +
				`"venue":999999}`},
		{Name: "ev_bad_organizer", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness Bad Org","start_date":"` + d1 + `","end_date":"` + d2 + `",` +
				`"organizer":[-1]}`},
		{Name: "ev_bad_image", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness Bad Image","start_date":"` + d1 + `","end_date":"` + d2 + `",` +
				`"image":999999}`},
		{Name: "ev_bad_author", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness Bad Author","start_date":"` + d1 + `","end_date":"` + d2 + `",` +
				`"author":999999}`},
		{Name: "ev_bad_json", Role: "admin", Method: "POST", Path: "/events", Body: `{"title":`},
		{Name: "ev_deep_json", Role: "admin", Method: "POST", Path: "/events",
			Body: `{"title":"Harness Deep","start_date":"` + d1 + `","end_date":"` + d2 + `","cost":` +
				strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`},
		{Name: "ev_anon_bad_author", Role: "anon", Method: "POST", Path: "/events",
			Deliberate: "anon-unknown-author",
			Body: `{"title":"Harness Anon Author","start_date":"` + d1 + `","end_date":"` + d2 + `",` +
				`"author":999999}`},
	}
}

func eventUpdates() []Step {
	return []Step{
		{Name: "upd_post_id", Role: "admin", Method: "POST", Path: "/events/{{ev_full}}",
			Body: fullEvent("Harness Full Updated", `,"sticky":true`), Deliberate: "update-only-given",
			Taints: []string{"ev_full"}},
		{Name: "upd_put_id", Role: "admin", Method: "PUT", Path: "/events/{{ev_min}}",
			Body: fullEvent("Harness Minimal Put", "")},
		{Name: "upd_patch_id", Role: "admin", Method: "PATCH", Path: "/events/{{ev_nested}}",
			Body: fullEvent("Harness Nested Patched", `,"timezone":"Asia/Kolkata","status":"draft"`)},
		{Name: "upd_post_slug", Role: "admin", Method: "POST", Path: "/events/by-slug/{{ev_allday.slug}}",
			Body: fullEvent("Harness Allday Slug", `,"all_day":true`)},
		{Name: "upd_put_slug", Role: "admin", Method: "PUT",
			Path: "/events/by-slug/{{ev_endbefore.slug}}",
			Body: fullEvent("Harness Backwards Put", "")},
		{Name: "upd_patch_slug", Role: "admin", Method: "PATCH",
			Path: "/events/by-slug/{{ev_utcoffset.slug}}", Body: fullEvent("Harness Offset Patch", "")},
		{Name: "upd_partial", Role: "admin", Method: "PATCH", Path: "/events/{{ev_newterms}}",
			Body: `{"title":"Harness Partial"}`, Deliberate: "update-only-given",
			Taints: []string{"ev_newterms"}},
		{Name: "upd_unknown_slug", Role: "admin", Method: "POST", Path: "/events/by-slug/harness-no-such",
			Body: fullEvent("Harness Nope", "")},
		{Name: "upd_unknown_id", Role: "admin", Method: "POST", Path: "/events/999999",
			Body: fullEvent("Harness Nope", "")},
		{Name: "upd_bad_date", Role: "admin", Method: "POST", Path: "/events/{{ev_full}}",
			Body: `{"start_date":"garbage"}`},
		{Name: "upd_anon", Role: "anon", Method: "POST", Path: "/events/{{ev_full}}",
			Body: `{"title":"Harness Anon"}`},
		{Name: "upd_subscriber", Role: "subscriber", Method: "PATCH", Path: "/events/{{ev_full}}",
			Body: `{"title":"Harness Sub"}`},
		{Name: "upd_contrib_others", Role: "contributor", Method: "PATCH", Path: "/events/{{ev_full}}",
			Body: `{"title":"Harness Contrib"}`},
		{Name: "upd_contrib_own", Role: "contributor", Method: "POST", Path: "/events/{{ev_contrib}}",
			Body: `{"title":"Harness By Contributor 2","status":"pending",` +
				`"start_date":"2027-04-11 12:00:00","end_date":"2027-04-11 13:00:00"}`,
			Deliberate: "update-only-given", Taints: []string{"ev_contrib"}},
		{Name: "upd_contrib_slug_others", Role: "contributor", Method: "PATCH",
			Path: "/events/by-slug/{{ev_author.slug}}", Body: fullEvent("Harness Contrib Slug", ""),
			Deliberate: "by-slug-per-object", Taints: []string{"ev_author"}},
		{Name: "upd_author_own", Role: "author", Method: "PUT", Path: "/events/{{ev_author}}",
			Body: fullEvent("Harness By Author 2", "")},
	}
}

func eventDeletes() []Step {
	return []Step{
		{Name: "del_anon", Role: "anon", Method: "DELETE", Path: "/events/{{ev_min}}"},
		{Name: "del_contrib_others", Role: "contributor", Method: "DELETE", Path: "/events/{{ev_min}}"},
		{Name: "del_id", Role: "admin", Method: "DELETE", Path: "/events/{{ev_min}}"},
		{Name: "del_id_again", Role: "admin", Method: "DELETE", Path: "/events/{{ev_min}}"},
		{Name: "del_slug", Role: "admin", Method: "DELETE", Path: "/events/by-slug/{{ev_form.slug}}"},
		{Name: "del_unknown", Role: "admin", Method: "DELETE", Path: "/events/999999"},
		{Name: "del_contrib_own", Role: "contributor", Method: "DELETE", Path: "/events/{{ev_contrib}}"},
	}
}

// linkedSteps are the writes of venues or organizers (kind singular, base plural); fields is the
// body without braces.
func linkedSteps(kind, base, fields string) []Step {
	p := kind[:3] + "_"

	return []Step{
		{Name: p + "create", Role: "admin", Method: "POST", Path: "/" + base, Body: "{" + fields + "}"},
		{Name: p + "dup", Role: "admin", Method: "POST", Path: "/" + base, Body: "{" + fields + "}"},
		{Name: p + "missing", Role: "admin", Method: "POST", Path: "/" + base, Body: `{"phone":"1"}`},
		{Name: p + "anon", Role: "anon", Method: "POST", Path: "/" + base, Body: "{" + fields + "}"},
		{Name: p + "subscriber", Role: "subscriber", Method: "POST", Path: "/" + base,
			Body: "{" + fields + "}"},
		{Name: p + "upd_post", Role: "admin", Method: "POST", Path: "/" + base + "/{{" + p + "create}}",
			Body: `{"` + kind + `":"Harness ` + kind + ` Renamed","description":"now described",` +
				`"phone":"999"}`, Deliberate: "update-only-given", Taints: []string{p + "create"}},
		{Name: p + "upd_put_slug", Role: "admin", Method: "PUT",
			Path: "/" + base + "/by-slug/{{" + p + "create.slug}}",
			Body: `{"website":"https://new.example"}`},
		{Name: p + "upd_patch", Role: "editor", Method: "PATCH",
			Path: "/" + base + "/{{" + p + "create}}",
			Body: `{"status":"draft","author":{{user.author}}}`},
		{Name: p + "upd_contrib", Role: "contributor", Method: "PATCH",
			Path: "/" + base + "/{{" + p + "create}}", Body: `{"phone":"1"}`},
		{Name: p + "upd_unknown", Role: "admin", Method: "POST", Path: "/" + base + "/999999",
			Body: `{"phone":"1"}`},
		{Name: p + "del_anon", Role: "anon", Method: "DELETE", Path: "/" + base + "/{{" + p + "create}}"},
		{Name: p + "del", Role: "admin", Method: "DELETE", Path: "/" + base + "/{{" + p + "create}}"},
		{Name: p + "del_again", Role: "admin", Method: "DELETE",
			Path: "/" + base + "/{{" + p + "create}}"},
		{Name: p + "del_slug", Role: "admin", Method: "DELETE",
			Path: "/" + base + "/by-slug/{{" + p + "dup.slug}}"},
	}
}

// termSteps are the writes of categories or tags; extra adds fields to the creation.
func termSteps(kind, base, extra string) []Step {
	p := kind[:3] + "_"
	body := `{"name":"Harness ` + kind + `","description":"d",` +
		`"slug":"harness-` + kind + `"` + extra + `}`

	return []Step{
		{Name: p + "create", Role: "admin", Method: "POST", Path: "/" + base, Body: body},
		{Name: p + "dup", Role: "admin", Method: "POST", Path: "/" + base, Body: body},
		{Name: p + "missing", Role: "admin", Method: "POST", Path: "/" + base, Body: `{"slug":"x"}`},
		{Name: p + "anon", Role: "anon", Method: "POST", Path: "/" + base, Body: body},
		{Name: p + "contrib", Role: "contributor", Method: "POST", Path: "/" + base,
			Body: `{"name":"Harness Contrib ` + kind + `"}`},
		{Name: p + "bad_parent", Role: "admin", Method: "POST", Path: "/" + base,
			Body: `{"name":"Harness Orphan ` + kind + `","parent":999999}`},
		{Name: p + "upd_post", Role: "admin", Method: "POST", Path: "/" + base + "/{{" + p + "create}}",
			Body: `{"name":"Harness ` + kind + ` Renamed"}`},
		{Name: p + "upd_put", Role: "editor", Method: "PUT", Path: "/" + base + "/{{" + p + "create}}",
			Body: `{"description":"put","slug":"harness-` + kind + `-put"}`},
		{Name: p + "upd_patch_dup_slug", Role: "admin", Method: "PATCH",
			Path: "/" + base + "/{{" + p + "create}}", Body: `{"slug":"free"}`},
		{Name: p + "upd_unknown", Role: "admin", Method: "POST", Path: "/" + base + "/999999",
			Body: `{"name":"x"}`},
		{Name: p + "del_subscriber", Role: "subscriber", Method: "DELETE",
			Path: "/" + base + "/{{" + p + "create}}"},
		{Name: p + "del", Role: "admin", Method: "DELETE", Path: "/" + base + "/{{" + p + "create}}"},
		{Name: p + "del_again", Role: "admin", Method: "DELETE",
			Path: "/" + base + "/{{" + p + "create}}"},
	}
}
