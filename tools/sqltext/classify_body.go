package sqltext

// A trigger, a routine or an event holds statements of its own, each ended
// by a semicolon: "CREATE TRIGGER trg AFTER INSERT ON log BEGIN DELETE FROM
// t; END" is one statement. As psql does, the classifier follows the
// blocks of such a body (BEGIN ... END, CASE ... END and, in MySQL, IF ...
// END IF, LOOP, WHILE and REPEAT) and the parentheses of a PostgreSQL rule,
// and splits only at a semicolon outside them. Every statement that can
// have a body is a write, so reading a body wrongly can only refuse a
// statement, never let one run unasked.

// hasBody reports whether the statement in toks can hold a body of
// statements: CREATE TRIGGER, PROCEDURE, FUNCTION, EVENT, RULE or PACKAGE,
// MySQL's ALTER EVENT, and MariaDB's BEGIN NOT ATOMIC.
func hasBody(toks []Token, d Dialect) bool {
	if len(toks) == 0 || toks[0].Kind != TokWord {
		return false
	}
	switch toks[0].Text {
	case "CREATE":
		switch objectKind(toks[1:]) {
		case "TRIGGER", "PROCEDURE", "FUNCTION", "AGGREGATE FUNCTION", "EVENT", "RULE", "PACKAGE", "PACKAGE BODY":
			return true
		}
	case "ALTER":
		return d == DialectMySQL && objectKind(toks[1:]) == "EVENT"
	case "BEGIN":
		return d == DialectMySQL && beginNotAtomic(toks)
	}
	return false
}

// beginNotAtomic reports whether toks starts with MariaDB's BEGIN NOT
// ATOMIC, a compound statement run without a routine around it.
func beginNotAtomic(toks []Token) bool {
	return len(toks) >= 3 && toks[0].IsWord("BEGIN") && toks[1].IsWord("NOT") && toks[2].IsWord("ATOMIC")
}

// bodySemicolons returns the indexes of the semicolons of toks that are
// inside a body's blocks or inside parentheses, or an error naming the
// block that is never closed. It is called only for a statement with a
// body, and reads it in one pass.
func bodySemicolons(s string, toks []Token, d Dialect) (map[int]bool, error) {
	inside := map[int]bool{}
	var blocks []int // the token index of each open block
	var commas map[int]bool
	parens := 0
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		switch {
		case t.IsPunct("("):
			parens++
		case t.IsPunct(")"):
			parens = max(parens-1, 0)
		case t.IsPunct(";"):
			if parens > 0 || len(blocks) > 0 {
				inside[k] = true
			}
		case t.Kind != TokWord || parens > 0:
			// As psql does, blocks count only outside parentheses, where
			// "f(begin int)" names a parameter.
		case t.Text == "END":
			closes := ""
			if k+1 < len(toks) && endsBlock(toks[k+1]) {
				closes = toks[k+1].Text // END IF, END LOOP, END CASE: one closer
			}
			if len(blocks) > 0 {
				open := toks[blocks[len(blocks)-1]]
				if !closesBlock(closes, open.Text) {
					return nil, newClassifyError(errSyntax, "the END%s at %s does not close the %s at %s; end the %s with END%s",
						prefixSpace(closes), sqlPosition(s, t.Pos), open.Text, sqlPosition(s, open.Pos), open.Text, prefixSpace(closerOf(open.Text)))
				}
				blocks = blocks[:len(blocks)-1]
			}
			if closes != "" {
				k++
			}
		case t.Text == "BEGIN" || t.Text == "CASE":
			blocks = append(blocks, k)
		case d == DialectMySQL && statementStart(toks, k):
			if commas == nil && t.Text == "IF" {
				commas = topLevelCommas(toks)
			}
			if opensMySQLBlock(toks, k, commas) {
				blocks = append(blocks, k)
			}
		}
	}
	if len(blocks) > 0 {
		open := toks[blocks[len(blocks)-1]]
		return nil, newClassifyError(errSyntax, "the %s at %s is never closed with END; close it, or finish the body", open.Text, sqlPosition(s, open.Pos))
	}
	return inside, nil
}

// endsBlock reports whether t, after END, names the block END closes.
func endsBlock(t Token) bool {
	switch {
	case t.IsWord("IF"), t.IsWord("LOOP"), t.IsWord("WHILE"), t.IsWord("REPEAT"), t.IsWord("CASE"):
		return true
	}
	return false
}

// closesBlock reports whether END followed by closes ("" for a plain END)
// ends the block that open, a BEGIN, CASE, IF, LOOP, WHILE or REPEAT,
// started. A CASE expression ends with END, a CASE statement with END
// CASE.
func closesBlock(closes, open string) bool {
	return closes == open || closes == "" && (open == "BEGIN" || open == "CASE")
}

// closerOf returns the word after END that closes a block opened by open.
func closerOf(open string) string {
	if open == "BEGIN" || open == "CASE" {
		return ""
	}
	return open
}

func prefixSpace(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

// statementStart reports whether toks[k] starts a statement of a MySQL
// compound statement: it follows a semicolon, a label or a word after
// which a statement comes.
func statementStart(toks []Token, k int) bool {
	if k == 0 {
		return false
	}
	p := toks[k-1]
	if p.IsPunct(";") || p.IsPunct(":") {
		return true
	}
	if p.Kind != TokWord {
		return false
	}
	switch p.Text {
	case "BEGIN", "ATOMIC", "THEN", "ELSE", "DO", "LOOP", "REPEAT", "ROW":
		return true
	}
	return false
}

// opensMySQLBlock reports whether the word at toks[k], at the start of a
// statement, opens a block that END closes. IF(a, b, c) and REPEAT(s, n)
// are functions, which a CASE expression may hold after THEN or ELSE;
// commas says which parentheses hold a comma.
func opensMySQLBlock(toks []Token, k int, commas map[int]bool) bool {
	call := k+1 < len(toks) && toks[k+1].IsPunct("(")
	switch toks[k].Text {
	case "LOOP", "WHILE":
		return true
	case "REPEAT":
		return !call
	case "IF":
		return !call || !commas[k+1]
	}
	return false
}

// topLevelCommas returns the indexes of the opening parentheses of toks
// whose own level, outside inner parentheses, holds a comma.
func topLevelCommas(toks []Token) map[int]bool {
	commas := map[int]bool{}
	var open []int
	for k, t := range toks {
		switch {
		case t.IsPunct("("):
			open = append(open, k)
		case t.IsPunct(")") && len(open) > 0:
			open = open[:len(open)-1]
		case t.IsPunct(",") && len(open) > 0:
			commas[open[len(open)-1]] = true
		}
	}
	return commas
}

// objectKind returns what a CREATE, ALTER or DROP is about ("TABLE",
// "MATERIALIZED VIEW") from the words after it, or "". It skips MySQL's
// DEFINER, ALGORITHM and SQL SECURITY clauses.
func objectKind(rest []Token) string {
	next := func(k int) string {
		if k+1 < len(rest) && rest[k+1].Kind == TokWord {
			return rest[k+1].Text
		}
		return ""
	}
	for k := 0; k < len(rest) && k < 16; k++ {
		t := rest[k]
		if t.Kind != TokWord {
			return ""
		}
		switch t.Text {
		case "OR", "REPLACE", "TEMP", "TEMPORARY", "UNIQUE", "UNLOGGED", "GLOBAL", "LOCAL",
			"IF", "NOT", "EXISTS", "RECURSIVE", "ONLINE", "OFFLINE", "IGNORE", "CONSTRAINT":
			continue
		case "DEFINER":
			k = definerEnd(rest, k)
			continue
		case "ALGORITHM": // ALGORITHM = MERGE
			k += 2
			continue
		case "SQL": // SQL SECURITY INVOKER
			k += 2
			continue
		case "MATERIALIZED", "VIRTUAL", "FOREIGN":
			if n := next(k); n != "" {
				return t.Text + " " + n
			}
			return t.Text
		case "AGGREGATE":
			if next(k) == "FUNCTION" {
				return "AGGREGATE FUNCTION"
			}
			return t.Text
		case "PACKAGE":
			if next(k) == "BODY" {
				return "PACKAGE BODY"
			}
			return t.Text
		case "TABLE", "VIEW", "INDEX", "SCHEMA", "DATABASE", "SEQUENCE", "FUNCTION", "PROCEDURE",
			"TRIGGER", "TYPE", "EXTENSION", "USER", "ROLE", "DOMAIN", "EVENT", "SERVER", "POLICY",
			"TABLESPACE", "PUBLICATION", "SUBSCRIPTION", "RULE", "COLLATION",
			"OPERATOR", "STATISTICS":
			return t.Text
		}
		return ""
	}
	return ""
}

// definerEnd returns the index of the last token of the DEFINER clause at
// rest[k]: DEFINER = user, user@host or CURRENT_USER().
func definerEnd(rest []Token, k int) int {
	if k+2 >= len(rest) || !rest[k+1].IsPunct("=") {
		return k
	}
	k += 2 // the user
	switch {
	case k+2 < len(rest) && rest[k+1].IsPunct("@"):
		k += 2
	case k+2 < len(rest) && rest[k+1].IsPunct("(") && rest[k+2].IsPunct(")"):
		k += 2
	}
	return k
}
