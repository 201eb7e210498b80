package test

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// Changes made in WordPress directly show up within the poll interval: creation, update, trash and
// permanent deletion.
func TestChangesInWordPressShowUp(t *testing.T) {
	start := time.Now().AddDate(0, 0, 3).Format("2006-01-02")
	created := wp(t, http.MethodPost, "/wp/v2/tribe_events", map[string]any{
		"title": "Freshness Check", "status": "publish", "content": "Made in WordPress directly.",
		"meta": map[string]any{"_EventStartDate": start + " 10:00:00", "_EventEndDate": start + " 11:00:00",
			"_EventStartDateUTC": start + " 15:00:00", "_EventEndDateUTC": start + " 16:00:00",
			"_EventTimezone": "America/New_York", "_EventTimezoneAbbr": "EST", "_EventCost": []string{"7"}},
	})
	id := strconv.Itoa(int(created["id"].(float64)))
	eventually(t, "created event", func() bool { return get(t, "/events/"+id).status == http.StatusOK })
	r := get(t, "/events/"+id)
	if str(at(r.body, "title")) != "Freshness Check" || str(at(r.body, "cost")) != "$7" || str(at(r.body, "start_date")) != start+" 10:00:00" {
		t.Errorf("created event reads %s", r.raw)
	}
	eventually(t, "listed", func() bool { return len(list(at(get(t, "/events?include="+id).body, "events"))) == 1 })

	wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"title": "Freshness Check, renamed"})
	eventually(t, "update", func() bool { return str(at(get(t, "/events/"+id).body, "title")) == "Freshness Check, renamed" })

	wp(t, http.MethodDelete, "/wp/v2/tribe_events/"+id, nil)
	eventually(t, "trash", func() bool { return str(at(get(t, "/events/"+id).body, "code")) == "event-no-longer-available" })

	wp(t, http.MethodDelete, "/wp/v2/tribe_events/"+id+"?force=true", nil)
	eventually(t, "permanent deletion", func() bool { return get(t, "/events/"+id).status == http.StatusNotFound })
}

// Terms changed in WordPress show up too.
func TestTermChangesShowUp(t *testing.T) {
	term := wp(t, http.MethodPost, "/wp/v2/tags", map[string]any{"name": "freshness-tag", "description": "new"})
	id := strconv.Itoa(int(term["id"].(float64)))
	defer wp(t, http.MethodDelete, "/wp/v2/tags/"+id+"?force=true", nil)
	eventually(t, "new tag", func() bool { return str(at(get(t, "/tags/"+id).body, "name")) == "freshness-tag" })
}
