// Command soak runs reads and writes through calshim replicas behind haproxy while WordPress is
// stopped and started twice and one replica is killed, and reports failed reads, writes reported as
// done that WordPress does not have, and each replica's RSS over time. scripts/soak.sh runs it.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"calshim/internal/testkit/cluster"
	"calshim/internal/testkit/rigenv"
)

type soak struct {
	c        *cluster.Cluster
	env      map[string]string
	root     string
	start    time.Time
	done     []string // IDs of events whose creation answered 201
	mu       sync.Mutex
	writes   map[string]int // outcome → count
	readBack atomic.Int64   // created events not shown through haproxy with X-Calshim-Min-Seq
	log      io.Writer
}

func main() {
	duration := flag.Duration("duration", 10*time.Minute, "how long the soak runs")
	base := flag.Int("base-port", 18160,
		"haproxy, its stats, 3 replicas, 3 proxies on consecutive ports")
	bin := flag.String("bin", "bin/calshim", "the calshim binary")
	flag.Parse()

	state := os.Getenv("CALSHIM_STATE")
	if state == "" {
		state = "/tmp/calshim-wp"
	}
	env, err := rigenv.Read(filepath.Join(state, "wp.env"))
	if err != nil {
		fail(err)
	}

	root, _ := os.Getwd()
	dir, err := os.MkdirTemp("", "calshim-soak")
	if err != nil {
		fail(err)
	}

	s := &soak{env: env, root: root, writes: map[string]int{}, log: os.Stderr, start: time.Now()}
	s.c, err = cluster.Start(cluster.Config{Bin: *bin, Dir: dir, WPURL: env["WP_URL"], Replicas: 3,
		BasePort: *base, Env: []string{
			"CALSHIM_UPSTREAM_USER=" + env["CALSHIM_UPSTREAM_USER"],
			"CALSHIM_UPSTREAM_APP_PASSWORD=" + env["CALSHIM_UPSTREAM_APP_PASSWORD"],
			"CALSHIM_SHUTDOWN_DRAIN=2s", "CALSHIM_LIMITS_TRUSTED_PROXIES=127.0.0.1",
		}})
	if err != nil {
		fail(err)
	}
	defer s.c.Close()
	s.logf("cluster up: haproxy %s, logs in %s", s.c.LB, dir)
	s.start = time.Now()
	s.run(*duration)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "soak:", err)
	os.Exit(1)
}

func (s *soak) logf(format string, a ...any) {
	_, _ = fmt.Fprintf(s.log, "soak %6.1fs: %s\n", time.Since(s.start).Seconds(),
		fmt.Sprintf(format, a...))
}

// run is the timeline: WordPress down at 15-25 % and 60-70 % of the duration, replica 1 killed at
// 45 % (started again 2 s later), RSS sampled every 30 s.
func (s *soak) run(d time.Duration) {
	paths := []string{"/wp-json/cal/events/v1/events?per_page=5", "/wp-json/cal/events/v1/venues",
		"/wp-json/cal/events/v1/categories", "/wp-json/cal/events/v1/events?page=2&per_page=3",
		"/wp-json/cal/events/v1/organizers", "/wp-json/cal/events/v1/tags"}
	load := cluster.StartLoad(s.c.LB, paths, 4, 20*time.Millisecond)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.writeLoop(stop) }()

	rss := [][]int64{}
	at := func(f float64) time.Time { return s.start.Add(time.Duration(f * float64(d))) }
	events := []struct {
		when time.Time
		what string
		do   func()
	}{
		{at(0.15), "WordPress stopped", func() { s.script("wp-down.sh") }},
		{at(0.25), "WordPress started", func() { s.script("wp-up.sh") }},
		{at(0.45), "replica 1 killed (SIGKILL), started again after 2 s", s.killReplica},
		{at(0.60), "WordPress stopped", func() { s.script("wp-down.sh") }},
		{at(0.70), "WordPress started", func() { s.script("wp-up.sh") }},
	}
	next := s.start
	for time.Since(s.start) < d {
		if !time.Now().Before(next) {
			rss = append(rss, s.sampleRSS())
			next = next.Add(30 * time.Second)
		}
		if len(events) > 0 && !time.Now().Before(events[0].when) {
			s.logf("%s", events[0].what)
			events[0].do()
			events = events[1:]
		}
		time.Sleep(200 * time.Millisecond)
	}

	close(stop)
	wg.Wait()
	load.Stop()
	rss = append(rss, s.sampleRSS())
	s.report(load, rss)
}

func (s *soak) script(name string) {
	cmd := exec.Command(filepath.Join(s.root, "scripts", name))
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Run(); err != nil {
		s.logf("%s: %v", name, err)
	}
}

func (s *soak) killReplica() {
	r := s.c.Replicas[1]
	if err := r.Kill(); err != nil {
		s.logf("kill: %v", err)
	}
	time.Sleep(2 * time.Second)
	if err := r.Start(); err != nil {
		s.logf("restart: %v", err)
	}
}

func (s *soak) sampleRSS() []int64 {
	out := make([]int64, len(s.c.Replicas)+1)
	out[0] = int64(time.Since(s.start).Seconds())
	for i, r := range s.c.Replicas {
		out[i+1] = r.RSS()
	}
	return out
}

func (s *soak) auth(role string) string {
	r := strings.ToUpper(role)
	cred := s.env["WP_"+r+"_USER"] + ":" + s.env["WP_"+r+"_APP_PASSWORD"]
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(cred))
}

// writeLoop creates an event through haproxy every 2 s as the editor, and reads each one created
// back through haproxy with the sequence its creation answered.
func (s *soak) writeLoop(stop chan struct{}) {
	client := &http.Client{Timeout: 30 * time.Second}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		case <-time.After(2 * time.Second):
		}
		s.writeOne(client, i)
	}
}

func (s *soak) writeOne(client *http.Client, i int) {
	body, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("Soak event %d", i),
		"start_date": "2032-01-10 10:00:00", "end_date": "2032-01-10 11:00:00"})
	req, _ := http.NewRequest(http.MethodPost, s.c.LB+"/wp-json/cal/events/v1/events",
		bytes.NewReader(body))
	req.Header.Set("Authorization", s.auth("editor"))
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		s.count("transport error (unknown outcome)")
		return
	}
	raw, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		s.count(fmt.Sprintf("answered %d", res.StatusCode))
		return
	}

	var ev struct {
		ID json.Number `json:"id"`
	}
	_ = json.Unmarshal(raw, &ev)
	s.count("created (201)")
	s.mu.Lock()
	s.done = append(s.done, ev.ID.String())
	s.mu.Unlock()
	s.readBackOne(client, ev.ID.String(), res.Header.Get("X-Calshim-Seq"))
}

func (s *soak) readBackOne(client *http.Client, id, seq string) {
	req, _ := http.NewRequest(http.MethodGet, s.c.LB+"/wp-json/cal/events/v1/events/"+id, nil)
	req.Header.Set("X-Calshim-Min-Seq", seq)
	res, err := client.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		s.readBack.Add(1)
	}
	if err == nil {
		_ = res.Body.Close()
	}
}

func (s *soak) count(outcome string) {
	s.mu.Lock()
	s.writes[outcome]++
	s.mu.Unlock()
}

// report checks every event reported as created in WordPress (as the administrator, any status),
// deletes them, and prints the figures.
func (s *soak) report(load *cluster.Load, rss [][]int64) {
	missing := 0
	for _, id := range s.done {
		if s.wp(http.MethodGet, "/wp/v2/tribe_events/"+id+"?context=edit") != http.StatusOK {
			missing++
			s.logf("event %s was reported created but WordPress does not have it", id)
		}
		s.wp(http.MethodDelete, "/wp/v2/tribe_events/"+id+"?force=true")
	}

	ok, failed := load.Counts()
	fmt.Printf("\nsoak: %v, 3 replicas behind haproxy, WordPress stopped and started twice, "+
		"replica 1 killed once\n", time.Since(s.start).Round(time.Second))
	fmt.Printf("reads: %d, failed %d\n", ok+failed, failed)
	for _, f := range load.Failures() {
		fmt.Println("  failed read:", f)
	}
	fmt.Printf("writes: %v; reported done but missing in WordPress: %d; created but not read back "+
		"through haproxy with X-Calshim-Min-Seq: %d\n", s.writes, missing, s.readBack.Load())
	fmt.Println("RSS (MiB) per replica over time:")
	fmt.Println("  t(s)  r0     r1     r2")
	for _, row := range rss {
		fmt.Printf("  %4d  %5.1f  %5.1f  %5.1f\n", row[0], mib(row[1]), mib(row[2]), mib(row[3]))
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func (s *soak) wp(method, path string) int {
	req, _ := http.NewRequest(method, s.env["WP_URL"]+"/wp-json"+path, nil)
	req.Header.Set("Authorization", s.auth("admin"))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	_ = res.Body.Close()
	return res.StatusCode
}
