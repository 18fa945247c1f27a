package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/aiq/aiq-rpc/sessionio"
)

// ErrContextLength is the cause of the error Complete returns when even the
// current turn alone does not fit the model's context window.
var ErrContextLength = errors.New("the request does not fit the model's context window")

// errIdle is the cause that ends an attempt when the endpoint sent nothing
// for the configured timeout.
var errIdle = errors.New("the model endpoint stopped answering")

// APIError is a failure of the model endpoint: an HTTP error status, a
// connection that failed or dropped, an answer that could not be read, or a
// context window too small for the question. Its Error is a sentence for the
// user that says what to do and never holds the API key.
type APIError struct {
	// Status is the HTTP status, 0 when the failure had none.
	Status int
	// RetryAfter is how long the endpoint asked to wait, 0 when it did not.
	RetryAfter time.Duration
	// Message is the sentence Error returns.
	Message string

	err           error  // the cause, for errors.Is and errors.As
	said          string // the endpoint's own message, fit to quote
	retry         bool   // another try may succeed
	contextLength bool   // the request was too long for the model
}

// Error returns Message.
func (e *APIError) Error() string {
	return e.Message
}

// HTTPStatus returns Status, for front ends that report it without
// knowing this package.
func (e *APIError) HTTPStatus() int { return e.Status }

// RetryAfterDelay returns RetryAfter, for front ends that report it
// without knowing this package.
func (e *APIError) RetryAfterDelay() time.Duration { return e.RetryAfter }

// Unwrap returns the cause: ErrContextLength, or a connection's error.
func (e *APIError) Unwrap() error {
	return e.err
}

// maxDetail bounds the part of an endpoint's own error message quoted in
// ours.
const maxDetail = 300

// errorBody is what an endpoint said about a failure.
type errorBody struct {
	message string // "" when there was none, or only an HTML page
	code    string
	kind    string // OpenAI's error type
}

// parseErrorBody reads the error shapes of the common servers: OpenAI's
// {"error":{"message","code","type"}}, Ollama's {"error":"..."}, vLLM's
// {"object":"error","message"}, FastAPI's {"detail"}, or plain text. An
// HTML page yields no message: its markup would only bury the status.
func parseErrorBody(body []byte) errorBody {
	body = bytes.TrimSpace(body)
	if bytes.HasPrefix(body, []byte("<")) {
		return errorBody{}
	}
	var top struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Code    json.RawMessage `json:"code"`
		Type    json.RawMessage `json:"type"`
	}
	if json.Unmarshal(body, &top) != nil {
		return errorBody{message: string(body)}
	}
	if len(top.Error) > 0 && !isNull(top.Error) {
		var inner errorBody
		if bytes.HasPrefix(top.Error, []byte("{")) {
			inner = parseErrorBody(top.Error)
		} else {
			inner.message = jsonText(top.Error)
		}
		return inner
	}
	msg := jsonText(top.Message)
	if msg == "" {
		msg = jsonText(top.Detail)
	}
	return errorBody{message: msg, code: jsonText(top.Code), kind: jsonText(top.Type)}
}

// jsonText reads a JSON value as text: a string as itself, an array of
// strings joined, null as "", anything else as its JSON text.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || isNull(raw) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, ", ")
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

func isNull(raw []byte) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// statusError turns an HTTP error answer into an APIError. It reads at most
// maxErrorBody bytes of the body.
func statusError(resp *http.Response, secret sessionio.Secret, now time.Time) *APIError {
	const maxErrorBody = 64 << 10
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody)) // what was read is still worth quoting
	info := parseErrorBody(body)
	e := &APIError{Status: resp.StatusCode, RetryAfter: retryAfter(resp.Header, now)}
	e.contextLength = isContextLength(e.Status, info)
	e.retry = !e.contextLength && isRetryStatus(e.Status) && info.code != "insufficient_quota"
	e.said = detail(info.message, secret)
	e.Message = statusMessage(e, info.code)
	return e
}

func isRetryStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// isContextLength reports whether an error answer says the request was too
// long for the model. A 429 never does: rate limits also speak of tokens.
func isContextLength(status int, info errorBody) bool {
	switch {
	case status == http.StatusTooManyRequests:
		return false
	case status == http.StatusRequestEntityTooLarge,
		info.code == "context_length_exceeded",
		info.kind == "exceed_context_size_error":
		return true
	}
	// What servers say: OpenAI and vLLM "maximum context length", llama.cpp
	// "context size", Anthropic "prompt is too long", and others.
	phrases := []string{
		"context length", "context_length", "maximum context", "context window",
		"too many tokens", "context size", "prompt is too long", "input is too long",
	}
	msg := strings.ToLower(info.message)
	for _, p := range phrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// statusMessage is the sentence for an HTTP error answer.
func statusMessage(e *APIError, code string) string {
	status := fmt.Sprintf("HTTP %d", e.Status)
	if text := http.StatusText(e.Status); text != "" {
		status += " " + text
	}
	said := e.said
	if said != "" {
		said = ": " + said
	}
	switch {
	case e.Status == http.StatusUnauthorized:
		// No detail: OpenAI's quotes part of the key back.
		return "the model endpoint refused the API key (HTTP 401); check api_key in config.yaml or AIQ_API_KEY"
	case e.contextLength:
		return fmt.Sprintf("the request does not fit the model's context window (%s)%s", status, said)
	case e.Status == http.StatusForbidden:
		return fmt.Sprintf("the model endpoint denied access (%s)%s; check that the API key may use this model", status, said)
	case e.Status == http.StatusNotFound:
		return fmt.Sprintf("the model endpoint found no such model or path (%s)%s; check url (usually ending in /v1) and model in config.yaml, or AIQ_LLM_URL and AIQ_MODEL", status, said)
	case code == "insufficient_quota":
		return fmt.Sprintf("the API key's quota is used up (%s)%s; check the account's plan and billing", status, said)
	case e.Status == http.StatusTooManyRequests:
		return fmt.Sprintf("the model endpoint is rate limiting requests (%s)%s%s", status, said, waitAdvice(e.RetryAfter))
	case e.Status >= 500:
		return fmt.Sprintf("the model endpoint failed (%s)%s%s", status, said, waitAdvice(e.RetryAfter))
	}
	return fmt.Sprintf("the model endpoint rejected the request (%s)%s", status, said)
}

func waitAdvice(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf("; it asks to wait %s before trying again", d.Round(time.Second))
}

// detail is an endpoint's own message fit to quote: on one line, shortened
// to maxDetail, and without the API key, which a server may echo.
func detail(msg string, secret sessionio.Secret) string {
	return quote(msg, secret, maxDetail)
}

// quote is msg on one line, without the key, shortened to n runes. It
// removes the key before shortening, so that no piece of it is left.
func quote(msg string, secret sessionio.Secret, n int) string {
	msg = strings.Join(strings.FieldsFunc(msg, unicode.IsSpace), " ")
	if key := secret.Reveal(); key != "" {
		msg = strings.ReplaceAll(msg, key, "[redacted]")
	}
	if r := []rune(msg); len(r) > n {
		msg = string(r[:n]) + "…"
	}
	return msg
}

// maxRetryAfter is the longest wait a Retry-After header may ask for before
// Complete gives up instead: a turn should not hang for minutes.
const maxRetryAfter = 60 * time.Second

// retryAfter reads Retry-After (seconds or an HTTP date) or OpenAI's
// retry-after-ms, and returns 0 when neither is usable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	const longest = 24 * time.Hour // keeps the conversion from overflowing
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(min(ms, float64(longest/time.Millisecond)) * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, longest.Seconds()) * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), longest)
	}
	return 0
}

// connError turns a failure to connect or to read the answer into an
// APIError. started says whether the endpoint had begun to answer.
func connError(err error, started bool) *APIError {
	e := &APIError{err: err}
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Message = "could not connect to the model endpoint: connection refused; check that it is running and that url in config.yaml (or AIQ_LLM_URL) names it"
	case errors.As(err, &dns):
		e.Message = fmt.Sprintf("could not find the model endpoint's host %q; check url in config.yaml or AIQ_LLM_URL", dns.Name)
	case isDropped(err) && !started:
		e.Message, e.retry = "the model endpoint closed the connection before answering", true
	case isDropped(err):
		e.Message, e.retry = "the model endpoint closed the connection in the middle of its answer", true
	default:
		e.Message = "the request to the model endpoint failed: " + innerError(err)
	}
	return e
}

// isDropped reports whether err is a connection the other side closed or
// reset: worth another try.
func isDropped(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, syscall.EPIPE)
}

// innerError is err's text without the *url.Error's method and URL, which
// add nothing the user does not know and could hold credentials.
func innerError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
