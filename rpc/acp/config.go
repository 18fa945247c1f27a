package acp

import "sync"

// configProblems are the problems of configuration files changed into
// something that cannot be read, waiting to be said: ACP has no message
// outside a prompt, so the next prompt's answer begins with them.
type configProblems struct {
	mu      sync.Mutex
	pending []string
}

// ConfigProblems tells the agent of configuration files that changed but
// cannot be read (each a sentence naming the file, line and field); the
// next prompt says them, once.
func (a *Agent) ConfigProblems(problems []string) {
	a.problems.mu.Lock()
	defer a.problems.mu.Unlock()
	a.problems.pending = append(a.problems.pending, problems...)
}

func (a *Agent) takeConfigProblems() []string {
	a.problems.mu.Lock()
	defer a.problems.mu.Unlock()
	p := a.problems.pending
	a.problems.pending = nil
	return p
}
