package conversation

import "github.com/aiq/aiq-rpc/sessionio"

// A session keeps the bytes a save wrote of its messages, so that the next
// save copies them instead of encoding the messages again; it also keeps
// the messages themselves, whose strings the model needs. Both in full
// would cost twice the file. So a session keeps all the bytes only while
// they are small (minKept), and otherwise the bytes of its newest messages
// up to a quarter of the file (keptShare), copied out of the file's buffer
// so that the buffer itself can go: a 10 MiB session then holds about 1.4
// times its file, and its save encodes three quarters of it anew (a few
// milliseconds; see docs/performance.md).
const (
	minKept   = 1 << 20
	keptShare = 4
)

// keepSome returns, for each of lists, the entries to keep: all of them,
// as they are, when their bytes come to no more than minKept; else the
// newest that fit in a keptShare of their bytes, the newest of the first
// list first, copied into one new buffer, and nil for the others. The
// entries are bytes of one buffer (the file just read or written), which
// this lets go; copied says whether it did, so that nothing kept refers
// to that buffer.
func keepSome(lists ...[]sessionio.EncodedMessage) (kept [][]sessionio.EncodedMessage, copied bool) {
	total := 0
	for _, list := range lists {
		for _, b := range list {
			total += len(b)
		}
	}
	if total <= minKept {
		return lists, false
	}
	budget := max(total/keptShare, minKept)
	out := make([][]sessionio.EncodedMessage, len(lists))
	left := budget
	for i, list := range lists {
		out[i] = make([]sessionio.EncodedMessage, len(list))
		for j := len(list) - 1; j >= 0 && left > 0; j-- {
			if b := list[j]; b != nil && len(b) <= left {
				out[i][j] = b
				left -= len(b)
			}
		}
	}
	arena := make([]byte, 0, budget-left)
	for _, list := range out {
		for j, b := range list {
			if b != nil {
				start := len(arena)
				arena = append(arena, b...)
				list[j] = arena[start:len(arena):len(arena)]
			}
		}
	}
	return out, true
}

// shareTexts makes each legacy message whose content is that of a user or
// assistant message of history use the history's string, so that a loaded
// session holds the texts of its turns once, not once for each list.
func shareTexts(history []Message, legacy []sessionio.LegacyMessage) {
	if len(legacy) == 0 {
		return
	}
	texts := make(map[string]string, len(legacy))
	for _, m := range history {
		if (m.Role == RoleUser || m.Role == RoleAssistant) && m.Content != "" {
			texts[m.Content] = m.Content
		}
	}
	for i := range legacy {
		if s, ok := texts[legacy[i].Content]; ok {
			legacy[i].Content = s
		}
	}
}
