package sqltext

import (
	"fmt"
	"strings"
	"testing"
)

// classifyShape is a statement of about size bytes made of one shape
// repeated, each a way a long statement can be built.
type classifyShape struct {
	name string
	d    Dialect
	make func(size int) string
}

// repeatTo repeats unit between head and tail until the statement is about
// size bytes long.
func repeatTo(head, unit, tail string, size int) string {
	n := max((size-len(head)-len(tail))/len(unit), 1)
	return head + strings.Repeat(unit, n) + tail
}

var classifyShapes = []classifyShape{
	{"long string", DialectPostgres, func(n int) string { return repeatTo("SELECT '", "a", "'", n) }},
	{"many comments", DialectMySQL, func(n int) string { return repeatTo("SELECT 1", " /* c */ -- c\n # c\n", "", n) }},
	{"deep parens", DialectPostgres, func(n int) string {
		depth := n / 2
		return "SELECT " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth)
	}},
	{"many tokens", DialectPostgres, func(n int) string { return repeatTo("SELECT ", "a+1,", "0 FROM t", n) }},
	{"long identifier", DialectSQLite, func(n int) string { return repeatTo("SELECT ", "a", " FROM t", n) }},
	{"dollar-quoted body", DialectPostgres, func(n int) string {
		return repeatTo("CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN ", "PERFORM 1; ", "RETURN 1; END $$", n)
	}},
	{"trigger body", DialectSQLite, func(n int) string {
		return repeatTo("CREATE TRIGGER trg AFTER INSERT ON t BEGIN ", "UPDATE t SET name = CASE WHEN id = 1 THEN 'a' END; ", "END", n)
	}},
	{"mysql nested blocks", DialectMySQL, func(n int) string {
		unit := "IF i > 0 THEN SET i = IF(i, 1, 2); "
		depth := n / (len(unit) + len(" END IF;"))
		return "CREATE PROCEDURE p() BEGIN " + strings.Repeat(unit, depth) + strings.Repeat(" END IF;", depth) + " END"
	}},
	{"explain chain", DialectPostgres, func(n int) string { return repeatTo("", "EXPLAIN ANALYZE ", "SELECT 1", n) }},
	{"executable comments", DialectMySQL, func(n int) string {
		return repeatTo("SELECT /*+ BKA(t) */ 1"+strings.Repeat(" /*!, 1 */", maxExecComments-1), `, 'a\'b', "c"`, "", n)
	}},
}

// BenchmarkClassify classifies a statement of each shape at 256 KiB and
// 1 MiB: ns/MiB stays the same across sizes when the time is linear in the
// length. The yardstick is strings.ToUpper over the same text, one pass
// that allocates a copy.
func BenchmarkClassify(b *testing.B) {
	for _, shape := range classifyShapes {
		for _, size := range []int{256 << 10, 1 << 20} {
			sql := shape.make(size)
			b.Run(fmt.Sprintf("%s/%dKiB", shape.name, size>>10), func(b *testing.B) {
				if _, err := Classify(sql, shape.d); err != nil {
					b.Fatalf("%s: %v", shape.name, err)
				}
				b.SetBytes(int64(len(sql)))
				for b.Loop() {
					_, _ = Classify(sql, shape.d)
				}
				reportPerMiB(b, len(sql))
			})
		}
	}
	sql := classifyShapes[0].make(1 << 20)
	b.Run("yardstick strings.ToUpper/1024KiB", func(b *testing.B) {
		b.SetBytes(int64(len(sql)))
		for b.Loop() {
			_ = strings.ToUpper(sql)
		}
		reportPerMiB(b, len(sql))
	})
}

// reportPerMiB reports the time per MiB of statement.
func reportPerMiB(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(float64(n)/(1<<20)), "ns/MiB")
}
