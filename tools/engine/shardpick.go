package engine

import (
	"strconv"
	"strings"
	"unicode"
)

// when is what a question says about time: years, months of the year,
// whole dates, and a span back from the latest shard ("the past 10
// years").
type when struct {
	years  map[int]bool
	months map[int]bool
	dates  map[string]bool
	// pastYears, pastMonths and pastDays count back from the latest key.
	pastYears, pastMonths, pastDays int
}

var monthNames = map[string]int{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
	"sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}

// readWhen finds the years, months and dates of a question.
func readWhen(question string) when {
	w := when{years: map[int]bool{}, months: map[int]bool{}, dates: map[string]bool{}}
	words := strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '/')
	})
	for i, word := range words {
		if m, ok := monthNames[word]; ok && (len(word) > 3 || i+1 < len(words) && isYear(words[i+1])) {
			w.months[m] = true
			continue
		}
		if isYear(word) {
			y, _ := strconv.Atoi(word)
			w.years[y] = true
			continue
		}
		if d := strings.NewReplacer("-", "", "/", "").Replace(word); len(d) == 8 && allDigits(d) && isYear(d[:4]) {
			w.dates[d] = true
			continue
		}
		if (word == "past" || word == "last") && i+2 < len(words) {
			n, err := strconv.Atoi(words[i+1])
			if err != nil || n <= 0 {
				continue
			}
			switch strings.TrimSuffix(words[i+2], "s") {
			case "year":
				w.pastYears = n
			case "month":
				w.pastMonths = n
			case "day":
				w.pastDays = n
			}
		}
	}
	return w
}

func isYear(s string) bool {
	if len(s) != 4 || !allDigits(s) {
		return false
	}
	y, _ := strconv.Atoi(s)
	return y >= 1800 && y <= 2200
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func (w when) empty() bool {
	return len(w.years) == 0 && len(w.months) == 0 && len(w.dates) == 0 &&
		w.pastYears == 0 && w.pastMonths == 0 && w.pastDays == 0
}

// Pick returns the positions in s.Members of the shards that the
// question's years, months and dates name, in key order; none when the
// question names no time or the set is not dated.
func (s *ShardSet) Pick(question string) []int {
	if !s.Dated() {
		return nil
	}
	w := readWhen(question)
	if w.empty() {
		return nil
	}
	last := s.Keys[len(s.Keys)-1]
	lastYear, _ := strconv.Atoi(last[:4])
	lastMonth := lastYear * 12
	if len(last) >= 6 {
		m, _ := strconv.Atoi(last[4:6])
		lastMonth += m - 1
	}
	var picked []int
	for i, k := range s.Keys {
		y, _ := strconv.Atoi(k[:4])
		m := 0
		if len(k) >= 6 {
			m, _ = strconv.Atoi(k[4:6])
		}
		ok := false
		switch {
		case w.dates[k]:
			ok = true
		case w.pastYears > 0:
			ok = y > lastYear-w.pastYears
		case w.pastMonths > 0 && m > 0:
			ok = y*12+m-1 > lastMonth-w.pastMonths
		case w.pastDays > 0 && len(k) == 8:
			ok = len(s.Keys)-i <= w.pastDays
		case len(w.years) > 0 || len(w.months) > 0:
			ok = (len(w.years) == 0 || w.years[y]) && (len(w.months) == 0 || m > 0 && w.months[m])
		}
		if ok {
			picked = append(picked, i)
		}
	}
	return picked
}
