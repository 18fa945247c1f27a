package conversation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// The errors of a Workspace. A front end maps them to its own codes with
// errors.Is; their messages are written for the user.
var (
	ErrUnknownSession    = errors.New("no open session has this id")
	ErrBusy              = errors.New("a turn is already running on this session")
	ErrSourceUnavailable = errors.New("data source not available")
	ErrNoModel           = errors.New("no model is configured")
	ErrInvalidRequest    = errors.New("invalid request")
)

// Config is what a Workspace needs from its surroundings.
type Config struct {
	Home sessionio.Home
	// Model returns the model to ask. It returns an error wrapping
	// ErrNoModel when none is configured; nil means never configured.
	Model func() (Model, error)
	// OpenToolbox opens the tools of a source for one session; nil means
	// the real databases, through an SQLToolboxes.
	OpenToolbox OpenToolbox
	// Sources lists the configured data sources; nil means the home's
	// sources.yaml, or the demo database when it names none.
	Sources func() ([]sessionio.Source, error)
	// DefaultSource is the source of a new session that names none.
	DefaultSource string
	// HistoryLimit is the number of turns kept; 0 means DefaultHistoryLimit.
	HistoryLimit int
	// MaxModelCalls bounds the model requests of a turn; 0 means the
	// Runner's default.
	MaxModelCalls int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// SQL sets the limits of the real databases, when OpenToolbox is nil.
	SQL engine.Options
}

// Workspace holds the open sessions of one client: their ids, the files
// they save to, and their tools. Its methods are safe for concurrent use;
// turns on different sessions run in parallel, and a session runs one turn
// at a time.
type Workspace struct {
	cfg      Config
	sqlBoxes *SQLToolboxes // nil when cfg.OpenToolbox was given
	nextID   atomic.Int64

	mu        sync.Mutex
	sessions  map[string]*openSession
	defaultID string
	logs      map[string]*callLog // the call logs by file name without its number (see Call)

	// memory gives free memory back to the system after a large session
	// is loaded, cleared or closed.
	memory memoryReturner
	// fileBuf is the buffer the last save wrote its file in, for the next.
	fileBuf fileBuffer
}

// openSession is a session in a workspace. mu guards the fields below it;
// busy is held for the whole of a turn, so a turn can release mu while it
// waits on the model. saveMu orders the writes of its file.
type openSession struct {
	id     string
	busy   atomic.Bool
	saveMu sync.Mutex

	mu    sync.Mutex
	s     *Session
	path  string
	dirty bool
	box   *sessionToolbox
	// model is the model SetModel picked; "" is the configured one.
	model string
}

// NewWorkspace returns an empty workspace.
func NewWorkspace(cfg Config) *Workspace {
	if cfg.Sources == nil {
		home := cfg.Home
		cfg.Sources = func() ([]sessionio.Source, error) { return ConfiguredSources(home) }
	}
	var sqlBoxes *SQLToolboxes
	if cfg.OpenToolbox == nil {
		sqlBoxes = &SQLToolboxes{Options: cfg.SQL}
		cfg.OpenToolbox = sqlBoxes.Open
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Model == nil {
		cfg.Model = func() (Model, error) { return nil, ErrNoModel }
	}
	return &Workspace{cfg: cfg, sqlBoxes: sqlBoxes, sessions: map[string]*openSession{}}
}

// Close closes the connections the workspace opened and the call logs,
// after making their appends durable. It saves no session; call SaveAll
// first.
func (w *Workspace) Close() error {
	w.mu.Lock()
	logs := w.logs
	w.logs = nil
	w.mu.Unlock()
	var errs []error
	for _, l := range logs {
		errs = append(errs, l.close())
	}
	if w.sqlBoxes != nil {
		errs = append(errs, w.sqlBoxes.Close())
	}
	return errors.Join(errs...)
}

// ClientOptions are the settings a client may choose when it connects.
type ClientOptions struct {
	// HistoryLimit is the number of turns kept; 0 keeps the current one.
	HistoryLimit int
	// DefaultSource is the source of new sessions; "" keeps the current one.
	DefaultSource string
}

// SetOptions applies a client's options.
func (w *Workspace) SetOptions(opts ClientOptions) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if opts.HistoryLimit > 0 {
		w.cfg.HistoryLimit = opts.HistoryLimit
	}
	if opts.DefaultSource != "" {
		w.cfg.DefaultSource = opts.DefaultSource
	}
}

func (w *Workspace) historyLimit() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cfg.HistoryLimit
}

// Info describes an open session.
type Info struct {
	SessionID    string `json:"sessionId"`
	Path         string `json:"path,omitempty"`
	Source       string `json:"source"`
	DatabaseType string `json:"databaseType"`
	Turns        int    `json:"turns"`
}

// claim takes the session for something that must not overlap a turn;
// release gives it back.
func (o *openSession) claim(doing string) error {
	if !o.busy.CompareAndSwap(false, true) {
		return fmt.Errorf("%s: %w; wait for it to finish or cancel it", doing, ErrBusy)
	}
	return nil
}

func (o *openSession) release() { o.busy.Store(false) }

func (o *openSession) info() Info {
	return Info{SessionID: o.id, Path: o.path, Source: o.s.Source, DatabaseType: o.s.DatabaseType, Turns: o.s.Turns()}
}

// New opens a new empty session on source: "" means the workspace's
// default source.
func (w *Workspace) New(ctx context.Context, source string) (Info, error) {
	if source == "" {
		source = w.defaultSource()
	}
	src, err := w.lookupSource(source)
	if err != nil {
		return Info{}, err
	}
	o := w.add(NewSession(src.Name, src.Type, w.cfg.Now()), "")
	return o.info(), nil
}

// defaultSource is the configured default, else the demo database when no
// source is configured at all, so that a new user can try everything.
func (w *Workspace) defaultSource() string {
	w.mu.Lock()
	source := w.cfg.DefaultSource
	w.mu.Unlock()
	if source != "" {
		return source
	}
	sources, err := w.cfg.Sources()
	if err == nil && len(sources) == 1 && sources[0].Name == DemoSourceName {
		return DemoSourceName
	}
	return ""
}

// lookupSource finds a configured source by name; "" is no database.
func (w *Workspace) lookupSource(name string) (sessionio.Source, error) {
	if name == "" {
		return sessionio.Source{}, nil
	}
	sources, err := w.cfg.Sources()
	if err != nil {
		return sessionio.Source{}, fmt.Errorf("%w: %w", ErrSourceUnavailable, err)
	}
	i := slices.IndexFunc(sources, func(s sessionio.Source) bool { return s.Name == name })
	if i < 0 {
		return sessionio.Source{}, fmt.Errorf("%w: there is no source %q in %s; the sources are: %s",
			ErrSourceUnavailable, name, w.cfg.Home.SourcesPath(), sourceNames(sources))
	}
	return sources[i], nil
}

func sourceNames(sources []sessionio.Source) string {
	if len(sources) == 0 {
		return "(none)"
	}
	var names []byte
	for i, s := range sources {
		if i > 0 {
			names = append(names, ", "...)
		}
		names = append(names, s.Name...)
	}
	return string(names)
}

func (w *Workspace) add(s *Session, path string) *openSession {
	o := &openSession{id: "s" + strconv.FormatInt(w.nextID.Add(1), 10), s: s, path: path}
	w.mu.Lock()
	w.sessions[o.id] = o
	w.mu.Unlock()
	return o
}

func (w *Workspace) get(id string) (*openSession, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	o, ok := w.sessions[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q; open one with session/new or session/load", ErrUnknownSession, id)
	}
	return o, nil
}

// LoadInfo describes a session opened from a file.
type LoadInfo struct {
	Info
	Warnings []string `json:"warnings"`
	// SourceAvailable is false when the file's source is no longer
	// configured; the session then runs without a database until the user
	// picks one.
	SourceAvailable bool `json:"sourceAvailable"`
}

// Load opens the session file at path. A file that cannot be read as a
// session is an error wrapping sessionio.ErrInvalid or ErrTooLarge, and
// opens nothing.
func (w *Workspace) Load(ctx context.Context, path string) (LoadInfo, error) {
	s, warnings, err := Load(path)
	if err != nil {
		if !errors.Is(err, sessionio.ErrTooLarge) && !errors.Is(err, sessionio.ErrInvalid) {
			err = fmt.Errorf("%w: %w", sessionio.ErrInvalid, err)
		}
		return LoadInfo{}, err
	}
	available := true
	if s.Source != "" {
		src, err := w.lookupSource(s.Source)
		if err != nil {
			available = false
			warnings = append(warnings, fmt.Sprintf("The session's data source %q is not configured here; until another is chosen, it has no database.", s.Source))
		} else {
			// The type of the source the session now uses, whatever the
			// file said (or left out).
			s.DatabaseType = src.Type
		}
	}
	if s.textSize() >= largeSession {
		// What reading the file took (its bytes, the decoding) is garbage
		// now: give it back rather than keep it until the heap grows
		// again, once the load is answered.
		w.memory.releaseAfterAnswer(ctx)
	}
	o := w.add(s, path)
	return LoadInfo{Info: o.info(), Warnings: nonNil(warnings), SourceAvailable: available}, nil
}

// SetDefault makes id the session that turns without a session id use.
func (w *Workspace) SetDefault(id string) {
	w.mu.Lock()
	w.defaultID = id
	w.mu.Unlock()
}

// Default returns the default session's id, opening a new session on the
// default source when there is none yet.
func (w *Workspace) Default(ctx context.Context) (string, error) {
	w.mu.Lock()
	id := w.defaultID
	_, open := w.sessions[id]
	w.mu.Unlock()
	if open {
		return id, nil
	}
	info, err := w.New(ctx, "")
	if err != nil {
		return "", err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, open := w.sessions[w.defaultID]; open {
		// Another request made the default first; keep that one.
		delete(w.sessions, info.SessionID)
		return w.defaultID, nil
	}
	w.defaultID = info.SessionID
	return info.SessionID, nil
}

// SetSource moves a session to another data source.
func (w *Workspace) SetSource(ctx context.Context, id, source string) (Info, error) {
	o, err := w.get(id)
	if err != nil {
		return Info{}, err
	}
	src, err := w.lookupSource(source)
	if err != nil {
		return Info{}, err
	}
	if err := o.claim("change source"); err != nil {
		return Info{}, err
	}
	defer o.release()
	o.mu.Lock()
	defer o.mu.Unlock()
	// A session whose source is gone already runs without a database:
	// saying so changes nothing worth writing before a turn runs, so a
	// turn that never happens leaves its file as it was.
	_, gone := w.lookupSource(o.s.Source)
	unchanged := src.Name == "" && o.s.Source != "" && gone != nil
	o.s.Source, o.s.DatabaseType = src.Name, src.Type
	endToolbox(o.box)
	o.box = nil
	if !unchanged {
		o.dirty = true
	}
	return o.info(), nil
}

func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// Sources lists the configured data sources.
func (w *Workspace) Sources() ([]sessionio.Source, error) {
	return w.cfg.Sources()
}
