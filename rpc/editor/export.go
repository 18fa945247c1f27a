package editor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/aiq/aiq-rpc/conversation"
)

// CodeExportFailed is an export whose statement did not succeed.
const CodeExportFailed jsonrpc2.Code = -32040

// codeRequestCancelled is LSP's code of a request cancelled by the client.
const codeRequestCancelled jsonrpc2.Code = -32800

type exportParams struct {
	SessionID string `json:"sessionId"`
	CallID    string `json:"callId"`
	SQL       string `json:"sql"`
	Format    string `json:"format"`
	Path      string `json:"path"`
	Overwrite bool   `json:"overwrite"`
}

// resultExport writes every row of a statement to a file, with the rows
// written so far as chat/progress status notifications.
func resultExport(ctx context.Context, s *Server, req request, p exportParams) (any, error) {
	switch {
	case p.SessionID == "":
		return nil, missing(req.method, "sessionId")
	case p.Format == "":
		return nil, missing(req.method, `format ("csv", "json" or "markdown")`)
	case p.Path == "":
		return nil, missing(req.method, "path")
	}
	progress := newProgress(s, p.SessionID, idValue(req.id))
	defer progress.close()
	report := func(rows int64) {
		progress.event(conversation.Event{Kind: conversation.EventStatus, Message: fmt.Sprintf("Exporting: %d rows written", rows), RowsWritten: rows})
	}
	res, err := s.ws.Export(ctx, p.SessionID, conversation.ExportRequest{CallID: p.CallID, SQL: p.SQL, Format: p.Format,
		Path: p.Path, Overwrite: p.Overwrite, Progress: report, Confirm: s.confirmer(p.SessionID)})
	progress.close()
	var failed *conversation.ExportFailedError
	switch {
	case err == nil:
		return res, nil
	case ctx.Err() != nil:
		return nil, jsonrpc2.NewError(codeRequestCancelled, "The export was cancelled; no file was written.")
	case errors.As(err, &failed):
		// data.status tells a statement the user declined (rejected) from
		// one that failed (error): the first is no error to show as one.
		e := jsonrpc2.NewError(CodeExportFailed, fmt.Sprintf("The export failed and wrote no file: %s.", strings.TrimSuffix(failed.Message, ".")))
		e.Data, _ = json.Marshal(struct {
			Status string `json:"status"`
		}{failed.Status})
		return nil, e
	}
	return nil, err
}
