package editor

import "context"

// configChangedParams are the params of config/changed: what initialize
// said of the configuration, as it is now.
type configChangedParams struct {
	ModelConfigured bool         `json:"modelConfigured"`
	Sources         []sourceInfo `json:"sources"`
}

// ConfigChange is what a check of the configuration files found.
type ConfigChange struct {
	// Changed: a file was read again and what it configures changed.
	Changed bool
	// ModelConfigured: a model is configured, as of now.
	ModelConfigured bool
	// Problems are the files changed into something that cannot be read,
	// each a sentence naming the file, line and field, told once.
	Problems []string
}

// ConfigChanged tells the client that the configuration files changed:
// each problem as a window/showMessage warning, and a change as
// config/changed with initialize's modelConfigured and sources as they are
// now, for the editor to refresh what it shows.
func (s *Server) ConfigChanged(c ConfigChange) {
	s.configured.Store(c.ModelConfigured)
	if !s.initialized.Load() {
		return
	}
	ctx := context.Background()
	for _, p := range c.Problems {
		s.showMessage(ctx, messageWarning, p)
	}
	if !c.Changed {
		return
	}
	sources, warnings := s.sources(nil)
	for _, w := range warnings {
		s.showMessage(ctx, messageWarning, w)
	}
	if err := s.conn.Notify(ctx, "config/changed", configChangedParams{ModelConfigured: c.ModelConfigured, Sources: sources}); err != nil {
		s.log.Warn("send config/changed", "err", err)
	}
}
