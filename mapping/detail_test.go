package mapping

import "testing"

func TestDateDetails(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"2026-11-25 19:00:00", `{"year":"2026","month":"11","day":"25","hour":"19","minutes":"00","seconds":"00"}`},
		{"2027-01-01 00:30:05", `{"year":"2027","month":"01","day":"01","hour":"00","minutes":"30","seconds":"05"}`},
		{"2026-11-25", `{"year":"2026","month":"11","day":"25","hour":"00","minutes":"00","seconds":"00"}`},
		{"2026-02-30 10:00:00", `{"year":"2026","month":"03","day":"02","hour":"10","minutes":"00","seconds":"00"}`},
		{"", `{"year":"1970","month":"01","day":"01","hour":"00","minutes":"00","seconds":"00"}`},
		{"2026-13-01 00:00:00", `{"year":"1970","month":"01","day":"01","hour":"00","minutes":"00","seconds":"00"}`},
		{"tomorrow", `{"year":"1970","month":"01","day":"01","hour":"00","minutes":"00","seconds":"00"}`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := string(EncodeJSON(DateDetails(tc.in))); got != tc.want {
				t.Errorf("DateDetails(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestGlobalID(t *testing.T) {
	tests := []struct {
		home string
		id   int
		want string
	}{
		{"http://127.0.0.1:8881", 54, "127.0.0.1?id=54"},
		{"https://example.com/blog", 3, "example.com/blog?id=3"},
		{"https://example.com/", 3, "example.com/?id=3"},
		{"http://example.com/?lang=de", 3, "example.com/?lang=de&id=3"},
		{"http://[::1]:8080", 1, "[::1]?id=1"},
	}
	for _, tc := range tests {
		t.Run(tc.home, func(t *testing.T) {
			if got := GlobalID(tc.home, tc.id); got != tc.want {
				t.Errorf("GlobalID(%q, %d) = %q, want %q", tc.home, tc.id, got, tc.want)
			}
		})
	}
}

func TestJSONLDDate(t *testing.T) {
	tests := []struct {
		name, local, tz, want string
	}{
		{"New York in July: EDT", "2026-07-04 12:00:00", "America/New_York", "2026-07-04T12:00:00-04:00"},
		{"New York in November: EST", "2026-11-25 19:00:00", "America/New_York", "2026-11-25T19:00:00-05:00"},
		{"fall back: first occurrence", "2026-11-01 01:30:00", "America/New_York", "2026-11-01T01:30:00-04:00"},
		{"spring forward: moved past the gap", "2026-03-08 02:30:00", "America/New_York", "2026-03-08T03:30:00-04:00"},
		{"half-hour DST, fall back", "2026-04-05 01:45:00", "Australia/Lord_Howe", "2026-04-05T01:45:00+11:00"},
		{"all-day end in London summer", "2026-07-05 23:59:59", "Europe/London", "2026-07-05T23:59:59+01:00"},
		{"Kolkata", "2026-12-27 08:00:00", "Asia/Kolkata", "2026-12-27T08:00:00+05:30"},
		{"IANA UTC", "2026-12-27 08:00:00", "UTC", "2026-12-27T08:00:00+00:00"},
		{"pseudo zone UTC+2", "2026-12-27 08:00:00", "UTC+2", "2026-12-27T08:00:00+02:00"},
		{"pseudo zone UTC+5.5", "2026-12-27 08:00:00", "UTC+5.5", "2026-12-27T08:00:00+05:30"},
		{"pseudo zone UTC-3.75", "2026-12-27 08:00:00", "UTC-3.75", "2026-12-27T08:00:00-03:45"},
		{"pseudo zone UTC+0", "2026-12-27 08:00:00", "UTC+0", "2026-12-27T08:00:00+00:00"},
		{"as the original, UTC+0.5 is not shifted first", "2026-12-27 08:00:00", "UTC+0.5", "2026-12-27T08:30:00+00:30"},
		{"pseudo zone the original cannot build", "2026-12-27 08:00:00", "UTC+5:30", "2026-12-27 02:30:00"},
		{"unknown zone reads as UTC", "2026-12-27 08:00:00", "Mars/Olympus", "2026-12-27T08:00:00+00:00"},
		{"unreadable date", "soon", "America/New_York", "soon"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := jsonLDDate(tc.local, tc.tz); got != tc.want {
				t.Errorf("jsonLDDate(%q, %q) = %q, want %q", tc.local, tc.tz, got, tc.want)
			}
		})
	}
}

func TestValidFrom(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-22 23:54:21": "2026-11-22T00:00:00+00:00",
		"0000-00-00 00:00:00": "1970-01-01T00:00:00+00:00",
	} {
		if got := validFrom(in); got != want {
			t.Errorf("validFrom(%q) = %q, want %q", in, got, want)
		}
	}
}
