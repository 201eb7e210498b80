package test

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The request envelope and the memory budget against the real WordPress, on a calshim of its own:
// anonymous floods by input channel (bodies of each kind, the query, headers), measured on the
// process itself (its peak RSS, /proc/PID/status VmHWM, reset before each flood; its CPU seconds).
// Default settings: a 64 MiB budget, 1 MiB bodies.
func TestEnvelopeFloods(t *testing.T) {
	base := launchOwn(t)
	pid := pidListening(t, strings.TrimPrefix(base, "http://"))
	client := &http.Client{Timeout: 60 * time.Second}
	numbers := `{"title":"x","a":[` + strings.Repeat("0,", (1<<20)/2-16) + `0]}`
	fields := "_fields=" + strings.Repeat("a.b.c.d,", 900) // 7 KiB: within the request line
	for _, c := range []struct {
		name        string
		n           int // requests at once
		method, url string
		body        string
		contentType string
		header      [2]string
		want        []int  // the statuses allowed
		growth      uint64 // the most the peak RSS may grow, bytes
	}{
		{"1 MiB JSON bodies of numbers", 32, http.MethodPost, v1 + "/events", numbers, "application/json", [2]string{},
			[]int{400, 401, 503}, 192 << 20},
		{"1 MiB form bodies", 32, http.MethodPost, v1 + "/events", "a[]=" + strings.Repeat("1&a[]=", (1<<20)/6),
			"application/x-www-form-urlencoded", [2]string{}, []int{400, 401, 503}, 192 << 20},
		{"_fields of 900 dotted names", 32, http.MethodGet, v1 + "/events?" + fields, "", "", [2]string{},
			[]int{200, 503}, 96 << 20},
		// Past MaxHeaderBytes (40 KiB) net/http answers 431 before calshim sees the request.
		{"_fields of 300 KiB", 8, http.MethodGet, v1 + "/events?_fields=" + distinctFields(300<<10), "", "",
			[2]string{}, []int{431}, 64 << 20},
		{"a query of 16 KiB", 32, http.MethodGet, v1 + "/events?" + strings.Repeat("a", 16<<10), "", "",
			[2]string{}, []int{414}, 64 << 20},
		{"a query of 1 MiB", 32, http.MethodGet, v1 + "/events?" + strings.Repeat("a", 1<<20), "", "",
			[2]string{}, []int{414, 431}, 64 << 20},
		{"a slug of 1 MiB", 8, http.MethodGet, v1 + "/events/by-slug/" + strings.Repeat("%C3%A9", (1<<20)/6), "", "",
			[2]string{}, []int{414, 431}, 64 << 20},
		{"a slug of 7 KiB", 32, http.MethodGet, v1 + "/events/by-slug/" + strings.Repeat("%C3%A9", (7<<10)/6), "", "",
			[2]string{}, []int{400}, 64 << 20}, // the original refuses such a slug
		{"headers of 8 KiB", 32, http.MethodGet, v1 + "/events", "", "", [2]string{"X-Forwarded-Proto", strings.Repeat("ſ", 4<<10)},
			[]int{431}, 64 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			resetPeak(t, pid)
			before, cpu := rss(t, pid, "VmRSS"), cpuSeconds(t, pid)
			statuses := map[int]int{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			for range c.n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					opts := []reqOption{via(client), lenient, header(c.header[0], c.header[1])}
					if c.body != "" {
						opts = append(opts, withBody(c.contentType, []byte(c.body)))
					}
					status := call(t, c.method, base+c.url, opts...).status
					mu.Lock()
					statuses[status]++
					mu.Unlock()
				}()
			}
			wg.Wait()
			peak := rss(t, pid, "VmHWM")
			grown := peak - min(before, peak)
			t.Logf("%d at once: statuses %v, peak RSS %d MiB (+%d MiB), %.2f CPU seconds", c.n, statuses,
				peak>>20, grown>>20, cpuSeconds(t, pid)-cpu)
			for s := range statuses {
				if !containsInt(c.want, s) {
					t.Errorf("status %d, want one of %v", s, c.want)
				}
			}
			if grown > c.growth {
				t.Errorf("peak RSS grew %d MiB, more than %d MiB", grown>>20, c.growth>>20)
			}
		})
	}
}

// TestEnvelopeDeclaredBodyUnread: a body declared past the limit is answered 413 at once, before
// the client has sent it (it waits for nothing).
func TestEnvelopeDeclaredBodyUnread(t *testing.T) {
	// A connection of its own, not call: net/http would send the body the request declares.
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(shim, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST %s/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\n\r\n{", v1, 1<<30)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body: %v", err)
	}
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", res.StatusCode)
	}
}

// TestEnvelopeHeadOverrideAnswered: a GET overridden to HEAD is answered without a body and with a
// Content-Length that says so: the client is not left waiting for bytes that never come.
func TestEnvelopeHeadOverrideAnswered(t *testing.T) {
	client := &http.Client{Timeout: 5 * time.Second}
	for _, target := range []string{v1 + "/events", v1 + "/events?_method=HEAD", v1 + "/nothing"} {
		res := call(t, http.MethodGet, target, header("X-HTTP-Method-Override", "HEAD"), via(client), lenient)
		if res.err != nil || len(res.raw) != 0 || res.header.Get("Content-Length") != "0" {
			t.Errorf("%s: %d, %d bytes, Content-Length %q, %v", target, res.status, len(res.raw),
				res.header.Get("Content-Length"), res.err)
		}
	}
}

// pidListening finds the process of a calshim by the address it was given (CALSHIM_LISTEN).
func pidListening(t *testing.T, addr string) int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err == nil && bytes.Contains(env, []byte("CALSHIM_LISTEN="+addr+"\x00")) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			return pid
		}
	}
	t.Fatalf("no process listens on %s", addr)
	return 0
}

// resetPeak resets the process's peak RSS (VmHWM) to its current RSS.
func resetPeak(t *testing.T, pid int) {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatal(err)
	}
}

// rss is a /proc/PID/status memory line (VmRSS, VmHWM) in bytes.
func rss(t *testing.T, pid int, key string) uint64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", key, pid)
	return 0
}

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds(t *testing.T, pid int) float64 {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / 100 // clock ticks (USER_HZ)
}

// distinctFields is a `_fields` list of about size bytes of distinct dotted names.
func distinctFields(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "f%d.a.b,", i)
	}
	return b.String()
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// TestRefusedWriteChangesNothing: a write refused for its size or its arguments is refused before
// its first request to WordPress, whatever it names: one existing organizer a hundred times with
// other fields (each a save onto it), a category to create before an argument refused. The organizer
// keeps its modified date, and the category does not exist.
func TestRefusedWriteChangesNothing(t *testing.T) {
	org := sid(t, "organizers", "jazzsoc")
	before := wp(t, http.MethodGet, "/wp/v2/tribe_organizer/"+org+"?context=edit", nil)
	name, _ := before["title"].(map[string]any)["raw"].(string)
	var payloads []any
	for i := range 100 {
		payloads = append(payloads, map[string]any{"organizer": name, "phone": fmt.Sprintf("555-%04d", i)})
	}
	ev := newEvent("Envelope Refused Size")
	ev["organizer"] = payloads
	wantError(t, send(t, "admin", http.MethodPost, "/events", ev), http.StatusBadRequest, "calshim_write_too_large")

	// A venue list is refused after the new category (the original creates it first).
	ev = newEvent("Envelope Refused Arguments")
	orphan := fmt.Sprintf("Envelope Orphan %d", time.Now().UnixNano())
	ev["categories"] = []any{orphan}
	ev["venue"] = []any{id(t, "venues", "bluenote")}
	wantError(t, send(t, "admin", http.MethodPost, "/events", ev), http.StatusBadRequest, "could-not-create-venue")

	after := wp(t, http.MethodGet, "/wp/v2/tribe_organizer/"+org+"?context=edit", nil)
	if after["modified_gmt"] != before["modified_gmt"] || after["meta"] == nil {
		t.Errorf("the organizer was saved: modified %v, was %v", after["modified_gmt"], before["modified_gmt"])
	}
	r := call(t, http.MethodGet, wpJSON("/wp/v2/tribe_events_cat?per_page=100&search="+strings.ReplaceAll(orphan, " ", "+")),
		as("admin"), lenient)
	if strings.Contains(string(r.raw), orphan) {
		t.Errorf("the refused write created its category: %.300s", r.raw)
	}
}

// TestSearchSkipsWhatItCannotShow: stored fields read back by others. A contributor's large drafts
// (3 venues of 512 KiB of accented text) cost an anonymous venue search nothing: their text was
// folded once when the catalog stored them, and a search tests status before text. 20 anonymous
// searches take under half a CPU second (on main, each folded every draft again: seconds).
func TestSearchSkipsWhatItCannotShow(t *testing.T) {
	base := launchOwn(t)
	pid := pidListening(t, strings.TrimPrefix(base, "http://"))
	text := strings.Repeat("Café Ünïcode wörds ", (512<<10)/22)
	for i := range 3 {
		v := wp(t, http.MethodPost, "/wp/v2/tribe_venue", map[string]any{"title": fmt.Sprintf("Envelope Draft %d", i),
			"status": "draft", "content": text})
		t.Cleanup(func() { wp(t, http.MethodDelete, fmt.Sprintf("/wp/v2/tribe_venue/%.0f?force=true", v["id"]), nil) })
	}
	eventually(t, "the drafts in the catalog", func() bool {
		r := call(t, http.MethodGet, base+v1+"/venues?status=draft&search=envelope+draft", as("admin"), lenient)
		return strings.Count(string(r.raw), "Envelope Draft") >= 3
	})

	cpu := cpuSeconds(t, pid)
	for i := range 20 {
		r := call(t, http.MethodGet, base+v1+fmt.Sprintf("/venues?search=unicode+words+%d", i), lenient)
		if r.status != http.StatusNotFound && r.status != http.StatusOK {
			t.Fatalf("search: %d %.200s", r.status, r.raw)
		}
	}
	spent := cpuSeconds(t, pid) - cpu
	t.Logf("20 anonymous searches: %.2f CPU seconds", spent)
	if spent > 0.5 {
		t.Errorf("20 anonymous searches took %.2f CPU seconds: the drafts' text was read", spent)
	}
}
