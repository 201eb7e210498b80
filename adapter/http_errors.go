package adapter

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"calshim/cmsclient"
	"calshim/mapping"
)

// apiError is an error answer in the original's vocabulary:
// {"code","message","data":{"status",...}}. Every failure a handler returns becomes one of these in
// exactly one place (errorBody).
type apiError struct {
	Status  int
	Code    string
	Message string
	Extra   mapping.Object // further members of data, after "status"
	// Trailer holds top-level members after data (WordPress' additional_data), or nil.
	Trailer mapping.Object
	// NoData: WordPress raised it without data, so its body says "data": null (and the status is 500).
	NoData bool
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func newError(status int, code, message string) *apiError {
	return &apiError{Status: status, Code: code, Message: message}
}

// The error answers a client may receive, each code spelled here once: WordPress' (rest_*), the
// original's (the event's and the venues' and organizers' own), calshim's (calshim_*), and those
// WordPress answers to a write, passed on as they come (fromUpstream). Two more sources hold codes
// of their own: the arguments' validators name theirs inside rest_invalid_param's details
// (paramError, below), and a write plan's refusals come from mapping (mapping.Refusal:
// could-not-create-*, invalid-linked-post-id, rest_taxonomy_not_hierarchical), answered by
// refused.

var (
	errNoRoute = newError(http.StatusNotFound, "rest_no_route",
		"No route was found matching the URL and request method.")
	errInvalidNamespace = newError(http.StatusNotFound, "rest_invalid_namespace",
		"The specified namespace could not be found.")
	errUnreadableBody = newError(http.StatusBadRequest, "rest_invalid_body",
		"The request body could not be read.")
	// errBodyTooLarge is the answer to a body past the limit (nginx's client_max_body_size answers
	// 413 too).
	errBodyTooLarge = newError(http.StatusRequestEntityTooLarge, "rest_request_too_large",
		"The request body is too large.")
	errJSONUTF8  = invalidJSON(5, "Malformed UTF-8 characters, possibly incorrectly encoded")
	errJSONUTF16 = invalidJSON(10, "Single unpaired UTF-16 surrogate in unicode escape")

	errEventNoLongerAvailable = newError(http.StatusForbidden, "event-no-longer-available",
		"This event is no longer available")
	errEventPasswordProtected = newError(http.StatusForbidden, "event-password-protected",
		"The requested event is not accessible without a password")
	errInvalidEventID = newError(http.StatusBadRequest, "rest-invalid-event-id",
		"The specified ID is not a valid event.")

	errNotReady = newError(http.StatusServiceUnavailable, "calshim_not_ready",
		"The calendar catalog is still loading. Try again shortly.")
	errURITooLong = newError(http.StatusRequestURITooLong, "calshim_uri_too_long",
		"The request line is too long.")
	errHeadersTooLarge = newError(http.StatusRequestHeaderFieldsTooLarge, "calshim_headers_too_large",
		"The request headers are too large.")
	// errPreconditionFailed is the answer to an If-Match that does not match.
	errPreconditionFailed = newError(http.StatusPreconditionFailed, "calshim_precondition_failed",
		"The resource has changed since the ETag given in If-Match, or does not exist. Read it again.")
	// errSyncExpired is the answer to a token calshim cannot answer.
	errSyncExpired = newError(http.StatusGone, "calshim_sync_token_expired",
		"The sync token has expired or belongs to another site. List again without sync_token.")
	// errSyncUnknown is the answer to a token inside a gap of this replica's for a post the caller
	// does not see now (catalog.ErrSyncUnknown: two rows of it read in one poll, or a recent repair):
	// another replica may have shown the post there in a state this one never held, so it cannot say
	// whether the caller holds it.
	errSyncUnknown = newError(http.StatusGone, "calshim_sync_token_unknown",
		"This server cannot tell what changed since the sync token for you. List again without sync_token.")
	errNotifyUnauthorized = newError(http.StatusUnauthorized, "calshim_notify_unauthorized",
		"A push notice needs the shared secret as its bearer token.")
	errShadowOff           = newError(http.StatusNotFound, "calshim_shadow_off", "shadow.url is not set.")
	errUpstreamUnavailable = newError(http.StatusServiceUnavailable, "calshim_upstream_unavailable",
		"The content management system behind this API could not be reached. Try again later.")
	// errWriteUnknown answers a write WordPress never answered, even asked again with its key
	// (cmsclient.ErrWriteUnknown): it may have been made; the next poll shows it either way.
	errWriteUnknown = newError(http.StatusGatewayTimeout, "calshim_write_unknown",
		"The content management system behind this API did not answer this write in time: it may or may not "+
			"have been made. Read the object again before you retry.")
	errInternal = newError(http.StatusInternalServerError, "calshim_internal_error", "Internal error.")
)

// invalidParams is WordPress' rest_invalid_param: params maps each bad argument (in declaration
// order) to its message, details each one's error where a validator gave one.
func invalidParams(params mapping.Object, details any) *apiError {
	names := make([]string, len(params))
	for i, kv := range params {
		names[i] = kv.Key
	}
	return &apiError{Status: http.StatusBadRequest, Code: "rest_invalid_param",
		Message: "Invalid parameter(s): " + strings.Join(names, ", "),
		Extra:   mapping.Object{{Key: "params", Value: params}, {Key: "details", Value: details}}}
}

// invalidParam is invalidParams for one argument with the generic message.
func invalidParam(name string) *apiError {
	return invalidParams(mapping.Object{{Key: name, Value: "Invalid parameter."}}, []any{})
}

// missingParams is WordPress' rest_missing_callback_param.
func missingParams(missing []string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Code: "rest_missing_callback_param",
		Message: "Missing parameter(s): " + strings.Join(missing, ", "),
		Extra:   mapping.Object{{Key: "params", Value: missing}}}
}

// invalidJSON is WordPress' answer to a body json_decode refuses, with PHP's json_last_error and its
// message.
func invalidJSON(code int, message string) *apiError {
	return &apiError{
		Status:  http.StatusBadRequest,
		Code:    "rest_invalid_json",
		Message: "Invalid JSON body passed.",
		Extra: mapping.Object{
			{Key: "json_error_code", Value: code},
			{Key: "json_error_message", Value: message},
		},
	}
}

// forbidden is WordPress' rest_forbidden: 401 for anonymous callers, 403 for logged-in ones.
func forbidden(v *viewer) *apiError {
	status := http.StatusForbidden
	if v == nil {
		status = http.StatusUnauthorized
	}
	return newError(status, "rest_forbidden", "Sorry, you are not allowed to do that.")
}

// eventNotFound is the original's answer to an event ID that is no post at all.
func eventNotFound(id int) *apiError {
	return newError(http.StatusNotFound, "rest-event-not-found", fmt.Sprintf("Event with ID %d does not exist.", id))
}

// The answers the original gives about an event, venue or organizer, kind naming it ("event").

func archivePageNotFound(kind string) *apiError {
	return newError(http.StatusNotFound, kind+"-archive-page-not-found",
		"The requested "+kind+" archive page does not exist")
}

func notAccessible(kind string) *apiError {
	return newError(http.StatusForbidden, kind+"-not-accessible", "The requested "+kind+" is not accessible")
}

func inTrash(kind string) *apiError {
	return newError(http.StatusGone, kind+"-is-in-trash", "The "+kind+" is already trashed")
}

// savedNotFound answers a write whose post the catalog does not hold afterwards.
func savedNotFound(kind string) *apiError {
	return newError(http.StatusInternalServerError, kind+"-not-found",
		"The requested post ID does not exist or is not an "+kind)
}

// writeTooLarge is the answer to a write that needs more requests than the limit.
func writeTooLarge(limit int) *apiError {
	return newError(http.StatusBadRequest, "calshim_write_too_large", fmt.Sprintf(
		"This write needs more than %d requests to WordPress. Send fewer new categories, tags, "+
			"venues, organizers or image URLs at once.", limit))
}

// rateLimited and busy refuse for the moment, secs the Retry-After the answer sends.
func rateLimited(message, secs string) *apiError {
	return newError(http.StatusTooManyRequests, "calshim_rate_limited", message+" Try again in "+secs+" seconds.")
}

func busy(message, secs string) *apiError {
	return newError(http.StatusServiceUnavailable, "calshim_busy", message+" Try again in "+secs+" seconds.")
}

// refused is a write plan's refusal (mapping.Refusal), a 400.
func refused(r *mapping.Refusal) *apiError {
	return newError(http.StatusBadRequest, r.Code, r.Message)
}

// fromUpstream is an error WordPress answered, passed on with its status, code and message.
func fromUpstream(ue *cmsclient.Error) *apiError { return newError(ue.Status, ue.Code, ue.Message) }

// paramError is one argument's failure as a validate_callback returns it: its code and message in
// rest_invalid_param's params and details.
type paramError struct {
	code, message string
	data          mapping.Object // nil shows "data": null
}

func (e *paramError) Error() string { return e.code + ": " + e.message }

// errFalse is a validate_callback's plain false.
var errFalse = &paramError{message: "Invalid parameter."}

// invalidType is rest_parse_request_arg's answer to a value not of the declared type.
func invalidType(name, typ string) *paramError {
	return &paramError{code: "rest_invalid_type", message: name + " is not of type " + typ + ".",
		data: mapping.Object{{Key: "param", Value: name}}}
}

// errTicketsNotActive is supports_ticketed's refusal.
var errTicketsNotActive = &paramError{code: "event-tickets-not-active",
	message: "Event Tickets plugin is not activated.",
	data:    mapping.Object{{Key: "status", Value: http.StatusBadRequest}}}

// errorBody turns any error into the status and body sent to the client. Errors that are not
// apiErrors never leak their text: upstream outages become 503 (a write whose outcome is unknown
// 504), the rest 500.
func errorBody(err error) (int, mapping.Object) {
	var ae *apiError
	if !errors.As(err, &ae) {
		switch {
		case errors.Is(err, cmsclient.ErrWriteUnknown):
			ae = errWriteUnknown
		case errors.Is(err, cmsclient.ErrUnavailable):
			ae = errUpstreamUnavailable
		default:
			ae = errInternal
		}
	}

	var data any = append(mapping.Object{{Key: "status", Value: ae.Status}}, ae.Extra...)
	if ae.NoData {
		data = nil
	}

	body := mapping.Object{{Key: "code", Value: ae.Code}, {Key: "message", Value: ae.Message},
		{Key: "data", Value: data}}
	return ae.Status, append(body, ae.Trailer...)
}
