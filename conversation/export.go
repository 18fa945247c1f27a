package conversation

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// ExportRequest asks for a whole result written to a file.
type ExportRequest struct {
	// CallID names a statement of the session's conversation; SQL gives
	// one instead. Exactly one of them.
	CallID string
	SQL    string
	// Format is "csv", "json" or "markdown" (tools.Formats).
	Format string
	Path   string
	// Overwrite replaces a file that is already at Path.
	Overwrite bool
	// Progress, when not nil, hears the rows written so far, now and then.
	Progress func(rows int64)
	// Confirm asks the user before a read the engine estimates above the
	// source's max_estimated_rows, as in a turn; nil rejects it.
	Confirm Confirmer
}

// Exported is a written export.
type Exported struct {
	Path     string   `json:"path"`
	Format   string   `json:"format"`
	SQL      string   `json:"sql"`
	RowCount int64    `json:"rowCount"`
	Columns  []string `json:"columns"`
}

// ExportFailedError is an export whose statement did not succeed: the
// database's error, the statement timeout, or a refusal.
type ExportFailedError struct {
	Status  string
	Message string
}

func (e *ExportFailedError) Error() string {
	return "the statement did not finish, so nothing was written: " + e.Message
}

// progressEvery is how often an export reports its rows.
const progressEvery = 250 * time.Millisecond

// Export runs a statement again, read-only, and writes every row of its
// result to req.Path, not only the rows a result keeps. The file appears
// whole or not at all: the rows go to a temporary file in the same folder,
// renamed over the path once complete; a failed or cancelled export
// leaves nothing behind. A statement that writes is refused: an export
// only reads. Bad input is an error wrapping ErrInvalidRequest.
func (w *Workspace) Export(ctx context.Context, id string, req ExportRequest) (Exported, error) {
	o, err := w.get(id)
	if err != nil {
		return Exported{}, err
	}
	if !slices.Contains(engine.Formats, req.Format) {
		return Exported{}, fmt.Errorf("%w: the format %q is not one of %s", ErrInvalidRequest, req.Format, strings.Join(engine.Formats, ", "))
	}
	sql, err := o.exportSQL(req)
	if err != nil {
		return Exported{}, err
	}
	path, err := exportPath(req.Path, req.Overwrite)
	if err != nil {
		return Exported{}, err
	}
	box, err := w.toolbox(ctx, o)
	if err != nil {
		return Exported{}, err
	}
	ex, ok := box.exporter()
	if !ok {
		return Exported{}, fmt.Errorf("%w: this session has no database to run the statement on; choose a data source first", ErrInvalidRequest)
	}
	if v, err := sqltext.Classify(sql, sqltext.Dialect(box.dialect)); err == nil && v.Class == sqltext.Write {
		return Exported{}, fmt.Errorf("%w: an export only reads, and this statement changes the database (%s); run it with chat/runSql instead",
			ErrInvalidRequest, strings.TrimSuffix(v.Reason, "."))
	}
	res, err := writeAtomically(path, func(f *os.File) (*engine.StatementResult, error) {
		out, err := engine.NewRowWriter(f, req.Format)
		if err != nil {
			return nil, err
		}
		sink := &progressSink{RowWriter: out, report: req.Progress, last: time.Now()}
		res := ex.Export(withConfirmer(engine.WithRowSink(ctx, sink), req.Confirm), sql)
		if res.Status != engine.StatusSuccess {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("export: %w", ctx.Err())
			}
			return nil, &ExportFailedError{Status: res.Status, Message: res.Error}
		}
		if len(res.Columns) == 0 {
			return nil, fmt.Errorf("%w: the statement returns no rows to export", ErrInvalidRequest)
		}
		return res, out.Close()
	})
	if err != nil {
		return Exported{}, err
	}
	return Exported{Path: path, Format: req.Format, SQL: sql, RowCount: res.RowCount, Columns: res.Columns}, nil
}

// exportSQL is the statement an export runs: the SQL given, or that of
// the call named.
func (o *openSession) exportSQL(req ExportRequest) (string, error) {
	switch {
	case req.CallID != "" && req.SQL != "":
		return "", fmt.Errorf("%w: give callId or sql, not both", ErrInvalidRequest)
	case strings.TrimSpace(req.SQL) != "":
		return req.SQL, nil
	case req.CallID == "":
		return "", fmt.Errorf("%w: give callId (a statement of the conversation) or sql", ErrInvalidRequest)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, m := range o.s.History {
		for _, c := range m.ToolCalls {
			if c.ID != req.CallID {
				continue
			}
			if _, sql := callArgs(c); sql != "" {
				return sql, nil
			}
			return "", fmt.Errorf("%w: the call %q runs no SQL statement (it is %s)", ErrInvalidRequest, req.CallID, c.Function.Name)
		}
	}
	return "", fmt.Errorf("%w: this session has no statement with callId %q; give one from chat/progress or chat/history, or give sql", ErrInvalidRequest, req.CallID)
}

// exportPath checks where an export goes: a file in a folder that
// exists, not a folder, and not a file already there unless overwrite.
func exportPath(path string, overwrite bool) (string, error) {
	if path == "" {
		return "", fmt.Errorf("%w: give the path of the file to write", ErrInvalidRequest)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	if err := checkSavePath(abs); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	if _, err := os.Lstat(abs); err == nil && !overwrite {
		return "", fmt.Errorf("%w: %s already exists; choose another path, or pass overwrite: true to replace it", ErrInvalidRequest, abs)
	}
	return abs, nil
}

// writeAtomically calls write with a temporary file in path's folder and
// renames it to path when write succeeds; otherwise removes it.
func writeAtomically(path string, write func(*os.File) (*engine.StatementResult, error)) (res *engine.StatementResult, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.part")
	if err != nil {
		return nil, fmt.Errorf("export: create the file: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if res, err = write(f); err != nil {
		return nil, err
	}
	if err = f.Chmod(0o644); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if err = f.Sync(); err != nil {
		return nil, fmt.Errorf("export: write the file: %w", err)
	}
	if err = f.Close(); err != nil {
		return nil, fmt.Errorf("export: write the file: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return res, nil
}

// progressSink counts the rows written and reports them now and then.
type progressSink struct {
	engine.RowWriter
	report func(int64)
	rows   int64
	last   time.Time
}

// count counts a row and now and then reports the count.
func (p *progressSink) count() {
	p.rows++
	if p.report != nil && p.rows%1024 == 0 && time.Since(p.last) >= progressEvery {
		p.last = time.Now()
		p.report(p.rows)
	}
}

func (p *progressSink) Row(values []any) error {
	p.count()
	return p.RowWriter.Row(values)
}

func (p *progressSink) TextRow(cells []engine.TextCell) error {
	p.count()
	return p.RowWriter.TextRow(cells)
}

// exporter is a toolbox that streams a statement's rows (see
// tools.WithRowSink).
type exporter interface {
	Export(ctx context.Context, sql string) *engine.StatementResult
}

func (b *sessionToolbox) exporter() (exporter, bool) {
	if b == nil {
		return nil, false
	}
	e, ok := toolsAs[exporter](b.Toolbox)
	return e, ok
}

// Export runs sql read-only, through the cost gate; its rows go to the
// sink on ctx.
func (b *sqlToolbox) Export(ctx context.Context, sql string) *engine.StatementResult {
	return b.set.Export(ctx, sql)
}
