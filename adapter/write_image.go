package adapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"syscall"
	"time"

	"calshim/cmsclient"
	"calshim/mapping/php"
)

// Image fetching limits (an image URL given to a write is downloaded and uploaded to the CMS).
const (
	defaultImageMaxBytes = 10 << 20
	imageFetchTimeout    = 15 * time.Second
)

// imageTypes are the content types accepted for fetched images, with the extension given to the
// upload.
var imageTypes = map[string]string{
	"image/jpeg": ".jpg",
	"image/png":  ".png",
	"image/gif":  ".gif",
	"image/webp": ".webp",
}

// resolveImage turns an image argument into an attachment ID: an ID as is; a URL to the attachment
// that already has it, else the image is downloaded (image.go limits) and uploaded as the caller.
// The search, the download and the upload each count against the write's limit of requests.
func (t *tx) resolveImage(v string) (int, error) {
	if id, known := knownImage(t.r, v); known {
		return id, nil
	}

	if err := t.spend(); err != nil {
		return 0, err
	}
	if id := t.attachmentByURL(v); id != 0 {
		return id, nil
	}

	if err := t.spend(); err != nil {
		return 0, err
	}
	data, ctype, name, err := t.s.fetchImage(t.r.gc.Request.Context(), v)
	if err != nil {
		t.s.log.Info("image fetch refused") // the URL itself may carry secrets: not logged
		return 0, invalidParam("image")
	}

	var id int
	err = t.call(func(ctx context.Context, c *cmsclient.Client, creds cmsclient.Credentials) error {
		uploaded, err := c.Upload(ctx, creds, name, ctype, data)
		if err == nil {
			id = uploaded.ID
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	t.created = append(t.created, created{base: "media", id: id})
	return id, nil
}

// knownImage is the attachment an image argument names without asking WordPress: an ID, or the
// URL of an event's featured image in the catalog.
func knownImage(r *request, v string) (int, bool) {
	if n, ok := php.PositiveInt(v); ok {
		return n, true
	}

	for _, p := range r.snap.Events {
		if m, ok := r.snap.Media(p.FeaturedMedia); ok && m.URL == v {
			return m.ID, true
		}
	}

	return 0, false
}

// attachmentByURL finds an existing attachment whose file URL is u (a media search by file name,
// then an exact comparison).
func (t *tx) attachmentByURL(u string) int {
	base := strings.TrimSuffix(path.Base(u), path.Ext(u))
	if base == "" || base == "." || base == "/" {
		return 0
	}

	list, err := t.r.cms.SearchMedia(t.r.gc.Request.Context(), base)
	if err != nil {
		return 0
	}

	for _, m := range list {
		if m.SourceURL == u {
			return m.ID
		}
	}

	return 0
}

// fetchImage downloads an image for upload: http(s) only, no loopback, private, link-local or
// multicast address (checked on the resolved address of every connection, redirects included, so
// DNS tricks do not help) unless Options.ImageAllowPrivate, at most Options.ImageMaxBytes, an image
// content type.
func (s *Server) fetchImage(
	ctx context.Context, raw string,
) (data []byte, ctype, name string, err error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, "", "", errors.New("adapter: image URL must be http(s)")
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", "", err
	}

	res, err := s.imageClient().Do(req)
	if err != nil {
		return nil, "", "", err
	}

	// The body is only read: by the time it is closed the image is in hand or refused, and a failed
	// close changes neither.
	defer func() { _ = res.Body.Close() }()

	ctype, _, _ = mime.ParseMediaType(res.Header.Get("Content-Type"))
	ext, ok := imageTypes[ctype]
	if res.StatusCode != http.StatusOK || !ok {
		return nil, "", "", fmt.Errorf("adapter: image answer %d %q", res.StatusCode, ctype)
	}

	limit := s.opt.ImageMaxBytes
	if limit <= 0 {
		limit = defaultImageMaxBytes
	}

	data, err = io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil || int64(len(data)) > limit {
		return nil, "", "", errors.New("adapter: image too large")
	}

	name = strings.TrimSuffix(path.Base(u.Path), path.Ext(u.Path))
	if name == "" || name == "." || name == "/" {
		name = "image"
	}

	return data, ctype, name + ext, nil
}

// imageClient is the HTTP client of image downloads. Its dialer checks the address it actually
// connects to, so neither a redirect nor a DNS answer can lead it to a refused one; no proxy is
// used.
func (s *Server) imageClient() *http.Client {
	allowed := func(_, address string, _ syscall.RawConn) error {
		host, _, _ := net.SplitHostPort(address)
		ip := net.ParseIP(host)
		if ip == nil || (!s.opt.ImageAllowPrivate && isNonPublic(ip)) {
			return fmt.Errorf("adapter: image host address %s not allowed", host)
		}
		return nil
	}

	dialer := &net.Dialer{Timeout: 5 * time.Second, Control: allowed}

	return &http.Client{
		Timeout:   imageFetchTimeout,
		Transport: &http.Transport{DialContext: dialer.DialContext, Proxy: nil},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 || (req.URL.Scheme != "http" && req.URL.Scheme != "https") {
				return errors.New("adapter: image redirect refused")
			}
			return nil
		},
	}
}

// isNonPublic reports a loopback, private, link-local, unspecified or multicast address.
func isNonPublic(ip net.IP) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsLinkLocalMulticast()
}
