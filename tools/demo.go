package tools

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/aiq/aiq-rpc/sessionio"
)

// DemoName is the source name of the demo database.
const DemoName = "demo"

// demoVersion is the version of the demo's schema and data. Raise it when
// either changes: CreateDemo replaces a demo of another version, which is
// its own file, but never any other file.
const demoVersion = 1

// demoToday is the day the demo's data leads up to: its orders fall in the
// 90 days before it, so that "the last 3 days" means something. It is
// stored in aiq_demo_meta for the model to find.
const demoToday = "2026-11-01"

// demoTimeLayout is how the demo stores times: SQLite's own layout, in
// UTC, so that they compare as text with what datetime() returns.
const demoTimeLayout = "2006-01-02 15:04:05"

// DemoSource returns the source of the demo database, the SQLite file
// demo.sqlite in the AIQ home folder homeDir. CreateDemo makes the file.
func DemoSource(homeDir string) sessionio.Source {
	return sessionio.Source{
		Name:     DemoName,
		Type:     sessionio.TypeSQLite,
		Database: filepath.Join(homeDir, "demo.sqlite"),
	}
}

// CreateDemo makes sure that the SQLite file at path is the demo database:
// a small shop with customers, products, orders and their items, the same
// rows on every run. When path already holds the demo it does nothing.
// Otherwise it builds the database in a temporary file beside path and
// then gives it the name, so that nobody ever sees half a database and
// several processes may race: all of them succeed and one complete file
// wins. A missing folder is created with mode 0700; the file has mode
// 0600.
//
// A file at path that is not the demo database is the user's and is never
// replaced: CreateDemo returns an error saying so. An older version of the
// demo is replaced.
func CreateDemo(ctx context.Context, path string) error {
	replace := false
	switch version, err := demoFileVersion(ctx, path); {
	case err == nil && version == demoVersion:
		return nil
	case err == nil:
		replace = true
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("create demo database %s: %w", path, err)
	}

	dir := filepath.Dir(path)
	tmp, err := buildDemo(ctx, dir)
	if err != nil {
		return fmt.Errorf("create demo database %s: %w", path, err)
	}
	defer os.Remove(tmp)
	if replace {
		err = os.Rename(tmp, path)
	} else {
		err = demoPublish(tmp, path)
	}
	if errors.Is(err, fs.ErrExist) {
		// Another process was quicker: fine if it made the demo.
		if version, verr := demoFileVersion(ctx, path); verr != nil {
			return fmt.Errorf("create demo database %s: %w", path, verr)
		} else if version != demoVersion {
			return fmt.Errorf("create demo database %s: another process wrote version %d of the demo at the same time", path, version)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("create demo database %s: %w", path, err)
	}
	if err := demoSyncDir(dir); err != nil {
		return fmt.Errorf("create demo database %s: %w", path, err)
	}
	return nil
}

// demoFileVersion returns the demo version of the database at path. An
// error wraps fs.ErrNotExist when there is no file, and otherwise says
// that the file is not a demo database.
func demoFileVersion(ctx context.Context, path string) (int, error) {
	// Stat before opening: SQLite would create a missing file, and
	// opening a FIFO could block.
	info, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	notDemo := func(why string) error {
		return fmt.Errorf("the file exists and is not an aiq demo database (%s); it is left as it is: move it away, or use another path", why)
	}
	if !info.Mode().IsRegular() {
		return 0, notDemo("not a regular file")
	}
	dsn, err := demoDSN(path, "mode=ro")
	if err != nil {
		return 0, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var value string
	err = db.QueryRowContext(ctx, "SELECT value FROM aiq_demo_meta WHERE key = 'version'").Scan(&value)
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if err != nil {
		return 0, notDemo(err.Error())
	}
	version, err := strconv.Atoi(value)
	if err != nil {
		return 0, notDemo(fmt.Sprintf("its version %q is not a number", value))
	}
	return version, nil
}

// demoDSN returns the driver's name for the file at path: a file: URI, in
// which any character of the path works, with query appended.
func demoDSN(path, query string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/...
	}
	return (&url.URL{Scheme: "file", Path: p, RawQuery: query}).String(), nil
}

// demoPublish gives the complete file tmp the name path unless path exists,
// failing then with fs.ErrExist. A hard link does that in one step; where
// the file system has none, a rename after a check leaves a short race, in
// which the loser's identical demo wins.
func demoPublish(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil || !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.ENOTSUP) && !errors.Is(err, syscall.EOPNOTSUPP) {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return fs.ErrExist
	}
	return os.Rename(tmp, path)
}

// demoSyncDir makes a new name in dir durable.
func demoSyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	// Some file systems cannot sync a folder; the name is there anyway.
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}

// buildDemo writes the demo database to a new temporary file in dir and
// returns its name.
func buildDemo(ctx context.Context, dir string) (_ string, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, ".demo-*.sqlite.tmp")
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	defer func() {
		if err != nil {
			os.Remove(name)
		}
		os.Remove(name + "-journal")
	}()

	dsn, err := demoDSN(name, "")
	if err != nil {
		return "", err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return "", err
	}
	db.SetMaxOpenConns(1) // the pragmas hold for one connection
	err = fillDemo(ctx, db)
	if closeErr := db.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return "", err
	}

	// synchronous is off while building: flush once, before the file gets
	// its name.
	f, err = os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return "", err
	}
	err = f.Chmod(0o600)
	if err == nil {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return name, err
}

// demoSchema creates the demo's tables. Times are text in demoTimeLayout,
// UTC; money is in integer cents, so that sums are exact.
const demoSchema = `
CREATE TABLE aiq_demo_meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE customers (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	email      TEXT NOT NULL UNIQUE,
	city       TEXT NOT NULL,
	country    TEXT NOT NULL,
	created_at TEXT NOT NULL
);
CREATE TABLE products (
	id          INTEGER PRIMARY KEY,
	name        TEXT NOT NULL UNIQUE,
	category    TEXT NOT NULL,
	price_cents INTEGER NOT NULL CHECK (price_cents > 0),
	stock       INTEGER NOT NULL CHECK (stock >= 0)
);
CREATE TABLE orders (
	id          INTEGER PRIMARY KEY,
	customer_id INTEGER NOT NULL REFERENCES customers (id),
	ordered_at  TEXT NOT NULL,
	status      TEXT NOT NULL CHECK (status IN ('pending', 'shipped', 'delivered', 'cancelled'))
);
CREATE TABLE order_items (
	order_id         INTEGER NOT NULL REFERENCES orders (id),
	product_id       INTEGER NOT NULL REFERENCES products (id),
	quantity         INTEGER NOT NULL CHECK (quantity > 0),
	unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents > 0),
	PRIMARY KEY (order_id, product_id)
);
CREATE INDEX orders_customer_id ON orders (customer_id);
CREATE INDEX orders_ordered_at ON orders (ordered_at);
CREATE INDEX order_items_product_id ON order_items (product_id);
`

// fillDemo creates the schema and inserts the rows, in one transaction.
func fillDemo(ctx context.Context, db *sql.DB) error {
	// The file is temporary until complete: no rollback journal on disk
	// and no waiting for the disk, which makes the build several times
	// faster.
	for _, pragma := range []string{"PRAGMA journal_mode = MEMORY", "PRAGMA synchronous = OFF", "PRAGMA foreign_keys = ON"} {
		if _, err := db.ExecContext(ctx, pragma); err != nil {
			return fmt.Errorf("%s: %w", pragma, err)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, demoSchema); err != nil {
		return fmt.Errorf("create the tables: %w", err)
	}

	data := demoRows()
	inserts := []struct {
		table string
		query string
		rows  [][]any
	}{
		{"aiq_demo_meta", "INSERT INTO aiq_demo_meta (key, value) VALUES (?, ?)", data.meta},
		{"customers", "INSERT INTO customers (id, name, email, city, country, created_at) VALUES (?, ?, ?, ?, ?, ?)", data.customers},
		{"products", "INSERT INTO products (id, name, category, price_cents, stock) VALUES (?, ?, ?, ?, ?)", data.products},
		{"orders", "INSERT INTO orders (id, customer_id, ordered_at, status) VALUES (?, ?, ?, ?)", data.orders},
		{"order_items", "INSERT INTO order_items (order_id, product_id, quantity, unit_price_cents) VALUES (?, ?, ?, ?)", data.items},
	}
	for _, ins := range inserts {
		if err := demoInsert(ctx, tx, ins.query, ins.rows); err != nil {
			return fmt.Errorf("fill %s: %w", ins.table, err)
		}
	}
	return tx.Commit()
}

// demoInsert runs the prepared query once per row.
func demoInsert(ctx context.Context, tx *sql.Tx, query string, rows [][]any) error {
	stmt, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, row := range rows {
		if _, err := stmt.ExecContext(ctx, row...); err != nil {
			return err
		}
	}
	return nil
}

// demoData is the rows of each demo table, in column order.
type demoData struct {
	meta, customers, products, orders, items [][]any
}

// demoRows generates the demo's rows. A fixed seed makes them the same on
// every run; the sizes are 200 customers, 50 products, 2000 orders and
// about 5000 order items.
func demoRows() demoData {
	// The catalogue: name, category and price in cents.
	products := []struct {
		name, category string
		cents          int
	}{
		{"The Pragmatic Programmer", "Books", 4299},
		{"Designing Data-Intensive Applications", "Books", 4599},
		{"SQL Antipatterns", "Books", 3499},
		{"The Go Programming Language", "Books", 3999},
		{"Database Internals", "Books", 4899},
		{"A Field Guide to Birds", "Books", 2499},
		{"Wireless Mouse", "Electronics", 2499},
		{"Mechanical Keyboard", "Electronics", 8999},
		{"27-inch Monitor", "Electronics", 27999},
		{"USB-C Hub", "Electronics", 3999},
		{"Noise-Cancelling Headphones", "Electronics", 19999},
		{"Webcam HD", "Electronics", 5999},
		{"Portable SSD 1TB", "Electronics", 10999},
		{"Ceramic Mug", "Home", 1299},
		{"French Press", "Home", 2999},
		{"Cast Iron Skillet", "Home", 3999},
		{"Linen Tablecloth", "Home", 4499},
		{"Desk Lamp", "Home", 3499},
		{"Wool Blanket", "Home", 6999},
		{"Garden Hose 20m", "Garden", 3299},
		{"Pruning Shears", "Garden", 1999},
		{"Tomato Seeds", "Garden", 399},
		{"Watering Can", "Garden", 1799},
		{"Compost Bin", "Garden", 5999},
		{"Wooden Puzzle", "Toys", 1599},
		{"Building Blocks Set", "Toys", 4999},
		{"Plush Bear", "Toys", 1999},
		{"Kite", "Toys", 2299},
		{"Board Game: Settlers", "Toys", 3999},
		{"Yoga Mat", "Sports", 2999},
		{"Running Shoes", "Sports", 11999},
		{"Water Bottle", "Sports", 1499},
		{"Tennis Racket", "Sports", 8999},
		{"Cycling Helmet", "Sports", 6999},
		{"Dumbbell Pair 5kg", "Sports", 3999},
		{"Cotton T-Shirt", "Clothing", 1999},
		{"Denim Jacket", "Clothing", 7999},
		{"Wool Socks", "Clothing", 1299},
		{"Rain Coat", "Clothing", 9999},
		{"Knit Beanie", "Clothing", 1799},
		{"Leather Belt", "Clothing", 3499},
		{"Espresso Beans 1kg", "Grocery", 2499},
		{"Green Tea", "Grocery", 899},
		{"Dark Chocolate", "Grocery", 349},
		{"Olive Oil 1L", "Grocery", 1499},
		{"Maple Syrup", "Grocery", 1199},
		{"Sea Salt", "Grocery", 499},
		{"Notebook A5", "Office", 699},
		{"Fountain Pen", "Office", 4999},
		{"Desk Organizer", "Office", 2799},
	}

	firstNames := []string{
		"Alice", "Bruno", "Chloé", "Daniel", "Emma", "Farid", "Grace", "Hiro", "Ines", "Jonas",
		"Kara", "Liam", "Maya", "Noah", "Olga", "Pedro", "Quinn", "Rosa", "Sven", "Tara",
		"Umar", "Vera", "Wei", "Ximena", "Yusuf", "Zoé", "Anna", "Ben", "Clara", "David",
	}

	lastNames := []string{
		"Müller", "Smith", "García", "Rossi", "Dubois", "Kowalski", "Nguyen", "Tanaka", "Silva", "Novak",
		"Jensen", "O'Brien", "Ivanova", "Haddad", "Kim", "Larsen", "Moreau", "Fischer", "López", "Chen",
	}

	cities := []struct{ city, country string }{
		{"Berlin", "Germany"}, {"Munich", "Germany"}, {"Hamburg", "Germany"},
		{"Paris", "France"}, {"Lyon", "France"},
		{"London", "United Kingdom"}, {"Manchester", "United Kingdom"},
		{"Madrid", "Spain"}, {"Barcelona", "Spain"},
		{"Rome", "Italy"}, {"Milan", "Italy"},
		{"Amsterdam", "Netherlands"}, {"Warsaw", "Poland"}, {"Vienna", "Austria"},
		{"New York", "United States"}, {"Chicago", "United States"}, {"San Francisco", "United States"},
		{"Toronto", "Canada"}, {"Tokyo", "Japan"}, {"São Paulo", "Brazil"},
	}

	rng := rand.New(rand.NewPCG(20261101, 42))
	today, _ := time.Parse(time.DateOnly, demoToday)
	var data demoData
	data.meta = [][]any{
		{"version", strconv.Itoa(demoVersion)},
		{"today", demoToday},
		{"description", "A small shop for trying aiq: customers, products, orders and order_items. " +
			"Times are UTC text (YYYY-MM-DD HH:MM:SS), money is integer cents, and the orders fall in the 90 days before " + demoToday + "."},
	}

	const customers = 200
	// Customers join in the 21 months before the first order.
	joinStart := today.AddDate(-2, 0, 0)
	joinSpan := today.AddDate(0, -3, 0).Sub(joinStart)
	for id := 1; id <= customers; id++ {
		first := firstNames[rng.IntN(len(firstNames))]
		last := lastNames[rng.IntN(len(lastNames))]
		place := cities[rng.IntN(len(cities))]
		email := fmt.Sprintf("%s.%s%d@example.com", demoEmailPart(first), demoEmailPart(last), id)
		joined := joinStart.Add(time.Duration(rng.Int64N(int64(joinSpan/time.Second))) * time.Second)
		data.customers = append(data.customers, []any{id, first + " " + last, email, place.city, place.country, joined.Format(demoTimeLayout)})
	}

	for i, p := range products {
		stock := rng.IntN(250)
		if rng.IntN(10) == 0 {
			stock = 0 // sold out
		}
		data.products = append(data.products, []any{i + 1, p.name, p.category, p.cents, stock})
	}

	// Orders over the 90 days before today, numbered in time order.
	const orders = 2000
	const window = 90 * 24 * 60 * 60
	start := today.AddDate(0, 0, -90)
	times := make([]time.Time, orders)
	for i := range times {
		times[i] = start.Add(time.Duration(rng.Int64N(window)) * time.Second)
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	for i, at := range times {
		id := i + 1
		// Some customers order far more often than others.
		customer := 1 + int(customers*rng.Float64()*rng.Float64())
		data.orders = append(data.orders, []any{id, customer, at.Format(demoTimeLayout), demoStatus(rng, today.Sub(at))})

		n := 1 + rng.IntN(4)
		picked := rng.Perm(len(products))[:n]
		slices.Sort(picked)
		for _, p := range picked {
			quantity := 1
			if rng.IntN(10) >= 7 {
				quantity += 1 + rng.IntN(3)
			}
			cents := products[p].cents
			if rng.IntN(10) == 0 {
				cents = cents * 9 / 10 // a discount
			}
			data.items = append(data.items, []any{id, p + 1, quantity, cents})
		}
	}
	return data
}

// demoStatus picks the status of an order placed age ago: recent orders
// are still pending or on their way, older ones delivered; a few of any
// age are cancelled.
func demoStatus(rng *rand.Rand, age time.Duration) string {
	r := rng.IntN(100)
	switch {
	case r < 5:
		return "cancelled"
	case age < 2*24*time.Hour:
		if r < 70 {
			return "pending"
		}
		return "shipped"
	case age < 7*24*time.Hour:
		switch {
		case r < 20:
			return "pending"
		case r < 70:
			return "shipped"
		}
		return "delivered"
	case r < 8:
		return "shipped"
	}
	return "delivered"
}

// demoEmailPart makes a name fit an email address: lower case ASCII
// letters only.
func demoEmailPart(name string) string {
	name = strings.NewReplacer("é", "e", "í", "i", "ó", "o", "ü", "ue").Replace(strings.ToLower(name))
	var b strings.Builder
	for _, r := range name {
		if 'a' <= r && r <= 'z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
