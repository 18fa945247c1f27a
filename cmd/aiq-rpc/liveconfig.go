package main

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"sync"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/rpc/editor"
	"github.com/aiq/aiq-rpc/sessionio"
)

// liveConfig is the home's config.yaml and sources.yaml as they are now:
// each check looks at both files and reads again the one that changed, so
// that a model set up while the server runs is used by the next request,
// with no restart. A file changed into one that cannot be read leaves the
// last good configuration in place, and its problem is told once.
type liveConfig struct {
	home    sessionio.Home
	getenv  func(string) string
	timeout time.Duration

	mu         sync.Mutex
	cfgStamp   fileStamp
	srcStamp   fileStamp
	llm        sessionio.LLM
	model      func() (conversation.Model, error)
	configured bool
	sources    []sessionio.Source
	sourcesErr error
	said       map[string]string // the problem last told for each file
	listeners  []func(configChange)
}

// configChange is what a check found: the new state, when it changed, and
// the problems of files that could not be read, each told once.
type configChange = editor.ConfigChange

// fileStamp tells whether a file changed since it was read.
type fileStamp struct {
	exists bool
	mod    time.Time
	size   int64
	sys    any
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	st := fileStamp{exists: true, mod: fi.ModTime(), size: fi.Size()}
	if sys := fi.Sys(); sys != nil {
		st.sys = inode(sys)
	}
	return st
}

// newLiveConfig reads both files. A config.yaml that cannot be read at
// start is no model, as before; its error is the model's error and the
// startup warning.
func newLiveConfig(home sessionio.Home, getenv func(string) string, timeout time.Duration) (*liveConfig, error) {
	l := &liveConfig{home: home, getenv: getenv, timeout: timeout, said: map[string]string{}}
	l.cfgStamp = stampOf(home.ConfigPath())
	l.srcStamp = stampOf(home.SourcesPath())
	cfg, err := home.LoadConfig(getenv)
	l.llm = cfg.LLM
	l.model = modelFactory(cfg.LLM, err, timeout)
	l.configured = err == nil && cfg.LLM.Configured()
	l.sources, l.sourcesErr = conversation.ConfiguredSources(home)
	return l, err
}

// subscribe adds f to the functions told of each change.
func (l *liveConfig) subscribe(f func(configChange)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.listeners = append(l.listeners, f)
}

// Model is the Workspace's model: the configured one as of now.
func (l *liveConfig) Model() (conversation.Model, error) {
	l.check()
	l.mu.Lock()
	model := l.model
	l.mu.Unlock()
	return model()
}

// Sources is the Workspace's list of sources as of now.
func (l *liveConfig) Sources() ([]sessionio.Source, error) {
	l.check()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sources, l.sourcesErr
}

// watchInterval is how often an idle server looks at the configuration
// files: two stats each time, so that an edit reaches the editor's header
// well within the two seconds a user waits for it.
const watchInterval = 500 * time.Millisecond

// watch checks the files every interval until the returned stop is
// called, so that a change is told (config/changed) while no request
// comes; stop returns once the last check is over. Polling, not inotify:
// editors save by rename, homes live on network disks, and two stats
// every half second cost nothing.
func (l *liveConfig) watch(ctx context.Context, interval time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				l.check()
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// check reads again the files that changed and tells the listeners.
func (l *liveConfig) check() {
	l.mu.Lock()
	var ch configChange
	if st := stampOf(l.home.ConfigPath()); st != l.cfgStamp {
		l.cfgStamp = st
		l.reloadConfig(&ch)
	}
	if st := stampOf(l.home.SourcesPath()); st != l.srcStamp {
		l.srcStamp = st
		l.reloadSources(&ch)
	}
	ch.ModelConfigured = l.configured
	listeners := l.listeners
	l.mu.Unlock()
	if ch.Changed || len(ch.Problems) > 0 {
		for _, f := range listeners {
			f(ch)
		}
	}
}

func (l *liveConfig) reloadConfig(ch *configChange) {
	path := l.home.ConfigPath()
	cfg, err := l.home.LoadConfig(l.getenv)
	if err != nil {
		l.problem(ch, path, err)
		return
	}
	delete(l.said, path)
	configured := cfg.LLM.Configured()
	if cfg.LLM == l.llm && configured == l.configured {
		return
	}
	l.llm, l.configured = cfg.LLM, configured
	l.model = modelFactory(cfg.LLM, nil, l.timeout)
	ch.Changed = true
}

func (l *liveConfig) reloadSources(ch *configChange) {
	path := l.home.SourcesPath()
	sources, err := conversation.ConfiguredSources(l.home)
	if err != nil {
		l.problem(ch, path, err)
		return
	}
	delete(l.said, path)
	if reflect.DeepEqual(sources, l.sources) && l.sourcesErr == nil {
		return
	}
	l.sources, l.sourcesErr = sources, nil
	ch.Changed = true
}

// problem records that the file at path could not be read, to be told
// once for as long as the file stays so.
func (l *liveConfig) problem(ch *configChange, path string, err error) {
	msg := fmt.Sprintf("A configuration file was changed but cannot be read, so the last good configuration stays in use: %v", err)
	if l.said[path] == msg {
		return
	}
	l.said[path] = msg
	ch.Problems = append(ch.Problems, msg)
}
