package cmsclient

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/go-resty/resty/v2"
)

// ErrNoCredentials is returned by the caller-authenticated methods when the caller sent no
// credentials: calshim never writes anonymously nor with its own service credential.
var ErrNoCredentials = errors.New("cmsclient: no caller credentials")

// Credentials are a caller's own, forwarded as given: an Authorization header (application passwords,
// basic or bearer auth), or WordPress' cookie authentication (the logged-in cookies plus the
// X-WP-Nonce that WordPress requires with them). Never logged.
type Credentials struct {
	Authorization string
	Cookie        string
	Nonce         string
}

// Empty reports whether there is nothing to authenticate with. A cookie without a nonce counts as
// nothing, as WordPress treats it as anonymous for the REST API.
func (c Credentials) Empty() bool { return c.Authorization == "" && (c.Cookie == "" || c.Nonce == "") }

// apply sets the credentials' headers on a request.
func (c Credentials) apply(req *resty.Request) *resty.Request {
	if c.Authorization != "" {
		req.SetHeader("Authorization", c.Authorization)
	}
	if c.Cookie != "" && c.Nonce != "" {
		req.SetHeader("Cookie", c.Cookie).SetHeader("X-WP-Nonce", c.Nonce)
	}
	return req
}

// callerHTTP returns the resty client used for requests made on behalf of a caller. It is a separate
// client without the service credential: resty puts a client-level basic auth over any Authorization
// header a request sets, so sharing the client could turn a caller's write into a service write.
func (c *Client) callerHTTP() *resty.Client {
	c.callerOnce.Do(func() {
		c.caller = c.hook(resty.New().SetBaseURL(c.http.BaseURL).SetTimeout(c.http.GetClient().Timeout).
			SetHeader("Accept", "application/json").SetHeader("User-Agent", "calshim"))
	})
	return c.caller
}

// Send makes a request on behalf of a caller, with the caller's own credentials and, for a non-nil
// body, a JSON body. It answers like Get, except that every WordPress error answer that
// carries a JSON error body is an *Error, whatever its status (wp_insert_term's duplicate_term_slug
// comes with 500): only transport failures and 5xx without a WordPress body are ErrUnavailable. A
// write is keyed (sendKeyed): its error is ErrWriteUnknown when WordPress never answered it.
func (c *Client) Send(
	ctx context.Context, method, path string, query url.Values, creds Credentials, body any,
) (*Response, error) {
	if creds.Empty() {
		return nil, ErrNoCredentials
	}
	ifVersion := ifVersionFor(ctx, method, path) // the first write of its object only, every attempt of it
	return c.sendKeyed(ctx, method, path, func(ctx context.Context) *resty.Request {
		req := creds.apply(c.callerHTTP().R().SetContext(ctx)).
			SetQueryParamsFromValues(c.http.QueryParam).SetQueryParamsFromValues(query)
		if body != nil {
			req.SetHeader("Content-Type", "application/json").SetBody(body)
		}
		if ifVersion != "" {
			req.SetHeader(IfVersionHeader, ifVersion)
		}
		return req
	})
}

// WriteKeyHeader names a write calshim makes of WordPress: the plugin (Calshim_Idempotency) runs one
// write per key, and answers the same key again with the first one's answer (the object it created,
// for a create that died half-way), after that one has ended.
const WriteKeyHeader = "X-Calshim-Write-Key"

// ErrWriteUnknown is a write WordPress never answered, even when asked again with its key: it may
// or may not have been made (the caller answers 504 and lets the next poll tell).
var ErrWriteUnknown = fmt.Errorf("%w: a write's outcome is unknown", ErrUnavailable)

// writeAttempts is how many times a write is sent (with one key) while its answer is lost.
const writeAttempts = 4

// sendKeyed sends a request built by build; a write (POST, PUT, PATCH, DELETE) carries a fresh key,
// and is sent again with that key while WordPress' answer is lost (no answer, a timeout, a 5xx
// without WordPress' body, the plugin's calshim_write_pending): a write is never sent twice
// without its key, so a create that timed out on a loaded site but was made is answered as made,
// not made a second time. It is sent once when the plugin does not key writes (an older one). The
// attempts after the first go on when the caller has gone away: the catalog learns what was made
// either way.
func (c *Client) sendKeyed(
	ctx context.Context, method, path string, build func(context.Context) *resty.Request,
) (*Response, error) {
	if method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions {
		return callerResponse(build(ctx).Execute(method, path))
	}
	key := newWriteKey()
	pause := c.WritePause
	for attempt := 1; ; attempt++ {
		res, err := callerResponse(build(ctx).SetHeader(WriteKeyHeader, key).Execute(method, path))
		if !answerLost(err) {
			return res, err
		}
		if attempt == writeAttempts || !c.writeKeys.Load() {
			return nil, fmt.Errorf("%w: %s %s: %d attempts: %v", ErrWriteUnknown, method, path, attempt, err)
		}
		ctx = context.WithoutCancel(ctx)
		time.Sleep(pause)
		pause *= 2
	}
}

// answerLost reports whether err leaves a write's outcome unknown: not a refused connection, which
// sent nothing.
func answerLost(err error) bool {
	var ue *Error
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return false
	}
	return errors.Is(err, ErrUnavailable) || errors.As(err, &ue) && ue.Code == "calshim_write_pending"
}

// newWriteKey is a random write key: 32 hex digits.
func newWriteKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func callerResponse(res *resty.Response, err error) (*Response, error) {
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if res.StatusCode() >= 300 {
		var body struct {
			Code    string          `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
			More    json.RawMessage `json:"additional_data"`
		}
		if json.Unmarshal(res.Body(), &body) == nil && body.Code != "" {
			return nil, &Error{
				Status: res.StatusCode(), Code: body.Code, Message: body.Message,
				Data: body.Data, AdditionalData: body.More, Created: createdHeader(res.Header()),
			}
		}
		return nil, checkStatus(res)
	}
	total, pages := headerInt(res, "X-WP-Total"), headerInt(res, "X-WP-TotalPages")
	return &Response{Body: res.Body(), Total: total, TotalPages: pages}, nil
}

// DataInt reads an integer member of an error's data (e.g. term_exists' term_id); 0 when absent.
func (e *Error) DataInt(key string) int {
	var data map[string]json.RawMessage
	if json.Unmarshal(e.Data, &data) != nil {
		return 0
	}
	var n int
	_ = json.Unmarshal(data[key], &n)
	return n
}

// metaTypesTTL is how long a post type's meta schema is trusted: a plugin activated on the CMS (one
// that registers the calendar's meta keys with other types) is noticed within this time.
const metaTypesTTL = 5 * time.Minute

type metaTypesKey struct {
	c        *Client
	postType string
}

type metaTypesEntry struct {
	types map[string]string
	at    time.Time
}

// metaTypesCache holds each client's meta schemas, per post type.
var metaTypesCache sync.Map

// MetaTypes returns the JSON type wp/v2 declares for each meta key of a post type, from the schema
// of OPTIONS /wp/v2/{type}: "string", "boolean", "number", or "array:" plus the item type for keys
// registered with several rows. The same keys may be registered by the calendar plugin itself when
// it is active (its block editor declares _EventAllDay boolean and _EventVenueID numbers), and wp/v2
// refuses values of another type, so writes send each key in the declared type.
func (c *Client) MetaTypes(ctx context.Context, postType string) (map[string]string, error) {
	key := metaTypesKey{c, postType}
	if e, ok := metaTypesCache.Load(key); ok && time.Since(e.(metaTypesEntry).at) < metaTypesTTL {
		return e.(metaTypesEntry).types, nil
	}
	path := v2 + postType
	res, err := c.http.R().SetContext(withOp(ctx, opMetaTypes)).SetQueryParamsFromValues(c.http.QueryParam).
		Execute(http.MethodOptions, path)
	if err != nil {
		return nil, fmt.Errorf("%w: OPTIONS %s: %v", ErrUnavailable, path, err)
	}
	types := map[string]string{}
	if err := checkStatus(res); errors.Is(err, ErrUnavailable) {
		return nil, err
	} else if err == nil {
		// A route without a schema (or an answer that is not one) declares nothing: values go as
		// they are, and WordPress says what it refuses.
		types, _ = decodeMetaTypes(res.Body())
	}
	metaTypesCache.Store(key, metaTypesEntry{types, time.Now()})
	return types, nil
}

// decodeMetaTypes reads schema.properties.meta.properties of a route's OPTIONS answer.
func decodeMetaTypes(body []byte) (map[string]string, error) {
	type prop struct {
		Type  any `json:"type"`
		Items struct {
			Type any `json:"type"`
		} `json:"items"`
	}
	var doc struct {
		Schema struct {
			Properties struct {
				Meta struct {
					Properties map[string]prop `json:"properties"`
				} `json:"meta"`
			} `json:"properties"`
		} `json:"schema"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, err
	}
	types := map[string]string{}
	for k, p := range doc.Schema.Properties.Meta.Properties {
		t, _ := p.Type.(string)
		if t == "array" {
			item, _ := p.Items.Type.(string)
			t += ":" + item
		}
		types[k] = t
	}
	return types, nil
}
