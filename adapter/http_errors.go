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

var errNoRoute = newError(http.StatusNotFound, "rest_no_route",
	"No route was found matching the URL and request method.")

// invalidParams is WordPress' rest_invalid_param: params maps each bad argument (in declaration
// order) to its message.
func invalidParams(params mapping.Object) *apiError {
	names := make([]string, len(params))
	for i, kv := range params {
		names[i] = kv.Key
	}
	return &apiError{Status: http.StatusBadRequest, Code: "rest_invalid_param",
		Message: "Invalid parameter(s): " + strings.Join(names, ", "),
		Extra:   mapping.Object{{Key: "params", Value: params}, {Key: "details", Value: []any{}}}}
}

// invalidParam is invalidParams for one argument with the generic message.
func invalidParam(name string) *apiError {
	return invalidParams(mapping.Object{{Key: name, Value: "Invalid parameter."}})
}

// errorBody turns any error into the status and body sent to the client. Errors that are not
// apiErrors never leak their text: upstream outages become 503, the rest 500.
func errorBody(err error) (int, mapping.Object) {
	var ae *apiError
	if !errors.As(err, &ae) {
		switch {
		case errors.Is(err, cmsclient.ErrUnavailable):
			ae = newError(http.StatusServiceUnavailable, "calshim_upstream_unavailable",
				"The content management system behind this API could not be reached. Try again later.")
		default:
			ae = newError(http.StatusInternalServerError, "calshim_internal_error", "Internal error.")
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

// notFound builds the "<Type> with ID <id> does not exist." family.
func notFoundf(code, format string, a ...any) *apiError {
	return newError(http.StatusNotFound, code, fmt.Sprintf(format, a...))
}
