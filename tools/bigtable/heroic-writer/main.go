// heroic-writer writes cells the way Heroic's Bigtable backend writes them, through Google's own Go client, so that a
// test reads rows no Kairograph code wrote: it creates the table with Heroic's column families (no GC rule), then
// applies the mutations it reads from stdin, one JSON object a line:
//
//	{"row":"<hex>","family":"points","qualifier":"<hex>","value":"<hex>"}        a cell at server time, as Heroic's -1
//	{"row":"<hex>","family":"points","qualifier":"<hex>","value":"<hex>","micros":N}  a cell at an explicit time
//
// With -read it writes nothing and prints every cell of the table instead, every version, in the same form (with
// "micros"), so that a test reads what Kairograph wrote without Kairograph's client.
//
// Usage: BIGTABLE_EMULATOR_HOST=host:port heroic-writer -project p -instance i -table metrics [-read] < cells.jsonl
package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"cloud.google.com/go/bigtable"
)

type cell struct {
	Row       string `json:"row"`
	Family    string `json:"family"`
	Qualifier string `json:"qualifier"`
	Value     string `json:"value"`
	Micros    *int64 `json:"micros"`
}

func main() {
	project := flag.String("project", "heroic", "project")
	instance := flag.String("instance", "heroic", "instance")
	table := flag.String("table", "metrics", "table")
	read := flag.Bool("read", false, "print every cell instead of writing")
	flag.Parse()
	run := write
	if *read {
		run = dump
	}
	if err := run(*project, *instance, *table); err != nil {
		fmt.Fprintln(os.Stderr, "heroic-writer:", err)
		os.Exit(1)
	}
}

func write(project, instance, table string) error {
	ctx := context.Background()
	admin, err := bigtable.NewAdminClient(ctx, project, instance)
	if err != nil {
		return err
	}
	defer admin.Close()
	tables, err := admin.Tables(ctx)
	if err != nil {
		return err
	}
	exists := false
	for _, t := range tables {
		exists = exists || t == table
	}
	if !exists {
		if err := admin.CreateTable(ctx, table); err != nil {
			return err
		}
		// Heroic's BigtableBackend creates these three families with no GC rule.
		for _, family := range []string{"points", "distributionPoints", "events"} {
			if err := admin.CreateColumnFamily(ctx, table, family); err != nil {
				return err
			}
		}
	}
	client, err := bigtable.NewClient(ctx, project, instance)
	if err != nil {
		return err
	}
	defer client.Close()
	tbl := client.Open(table)
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for scanner.Scan() {
		if len(scanner.Bytes()) == 0 {
			continue
		}
		var c cell
		if err := json.Unmarshal(scanner.Bytes(), &c); err != nil {
			return fmt.Errorf("line %d: %w", n+1, err)
		}
		row, err1 := hex.DecodeString(c.Row)
		qualifier, err2 := hex.DecodeString(c.Qualifier)
		value, err3 := hex.DecodeString(c.Value)
		if err1 != nil || err2 != nil || err3 != nil {
			return fmt.Errorf("line %d: row, qualifier and value must be hex", n+1)
		}
		ts := bigtable.ServerTime
		if c.Micros != nil {
			ts = bigtable.Timestamp(*c.Micros)
		}
		mut := bigtable.NewMutation()
		mut.Set(c.Family, string(qualifier), ts, value)
		if err := tbl.Apply(ctx, string(row), mut); err != nil {
			return fmt.Errorf("line %d: %w", n+1, err)
		}
		n++
	}
	if err := scanner.Err(); err != nil {
		return err
	}
	fmt.Printf("wrote %d cells\n", n)
	return nil
}

func dump(project, instance, table string) error {
	ctx := context.Background()
	client, err := bigtable.NewClient(ctx, project, instance)
	if err != nil {
		return err
	}
	defer client.Close()
	out := json.NewEncoder(os.Stdout)
	var failed error
	err = client.Open(table).ReadRows(ctx, bigtable.InfiniteRange(""), func(row bigtable.Row) bool {
		for family, items := range row {
			for _, item := range items {
				// The client names a column "family:qualifier".
				qualifier := item.Column[len(family)+1:]
				micros := int64(item.Timestamp)
				failed = out.Encode(cell{
					Row:       hex.EncodeToString([]byte(item.Row)),
					Family:    family,
					Qualifier: hex.EncodeToString([]byte(qualifier)),
					Value:     hex.EncodeToString(item.Value),
					Micros:    &micros,
				})
				if failed != nil {
					return false
				}
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	return failed
}
