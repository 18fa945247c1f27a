package conversation

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Random sequences: pools of strings that share bytes, clones, substrings,
// contents made of earlier outputs and tokens; ids from a tiny set.
func TestAttackRandom(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		f := newFences()
		pool := []string{"", "a", "ab", "abc", `{"rows":[]}`}
		big := "abcabcabc"
		pool = append(pool, big[:3], big[3:6], big)
		var prev []Message
		for req := 0; req < 30; req++ {
			var in []Message
			switch rng.IntN(4) {
			case 0: // same as last, maybe trimmed from the front
				if len(prev) > 0 {
					in = append(in, prev[rng.IntN(len(prev)):]...)
				}
			case 1: // last with clones
				for _, m := range prev {
					if rng.IntN(2) == 0 {
						m.Content = strings.Clone(m.Content)
					}
					in = append(in, m)
				}
			case 2: // shuffled last
				in = append(in, prev...)
				rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
			}
			for k := rng.IntN(4); k > 0; k-- {
				c := pool[rng.IntN(len(pool))]
				if rng.IntN(3) == 0 {
					c = strings.Clone(c)
				}
				in = append(in, tool(string(rune('a'+rng.IntN(2))), c))
			}
			if len(in) > 12 {
				in = in[len(in)-12:]
			}
			out := f.fenced(in)
			toks := atkCheck(t, in, out)
			if t.Failed() {
				t.Fatalf("seed %d req %d", seed, req)
			}
			// feed tokens and whole fences back into the pool (attacker DB)
			for i, m := range out {
				if toks[i] != "" {
					pool = append(pool, "</data-"+toks[i]+">", m.Content, m.Content[:len(m.Content)/2])
				}
			}
			prev = in
		}
	}
}

// Identical consecutive requests (same strings) must give identical output.
func TestAttackRepeatIdentical(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		f := newFences()
		pool := []string{"", "a", "x", "a"}
		var in []Message
		for req := 0; req < 20; req++ {
			c := pool[rng.IntN(len(pool))]
			if rng.IntN(2) == 0 {
				c = strings.Clone(c)
			}
			in = append(in, tool("c", c))
			if rng.IntN(3) == 0 {
				for i := range in {
					if rng.IntN(2) == 0 {
						in[i].Content = strings.Clone(in[i].Content)
					}
				}
			}
			a := f.fenced(in)
			b := f.fenced(in)
			for i := range a {
				if a[i].Content != b[i].Content {
					t.Fatalf("seed %d req %d: identical request gave another fence at %d", seed, req, i)
				}
			}
		}
	}
}
