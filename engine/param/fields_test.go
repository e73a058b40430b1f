package param

import "testing"

// Fields within the declaration are checked without writing them out;
// fields outside it get Check's error for the same values written out.
func TestCheckFields(t *testing.T) {
	unwritten := func() map[string]string {
		t.Fatal("fields within the declaration were written out")
		return nil
	}
	ok := []Field{Num(0.2), Num(0.2), Num(0), Num(1), Num(10), Words([]string{"a", "b", "a"})}
	if err := testSchema.CheckFields(unwritten, ok...); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fields []Field
		raw    map[string]string
		want   string
	}{
		{[]Field{Num(0.2), Num(0.1), Num(10), Num(20), Num(120), Words([]string{"a"})},
			map[string]string{"base": "0.2", "cap": "0.1"}, `cap: "0.1" is not at least base (0.2)`},
		{[]Field{Num(0.1), Num(200), Num(10), Num(20), Num(120), Words([]string{"a"})},
			map[string]string{"cap": "200"}, `cap: "200" is out of bounds (allowed: 0.001 to 100)`},
		{[]Field{Num(0.1), Num(10), Num(10.5), Num(20), Num(120), Words([]string{"a"})},
			map[string]string{"from": "10.5"}, `from: "10.5" is not a whole number (allowed: 0 to 599)`},
		{[]Field{Num(0.1), Num(10), Num(10), Num(20), Num(120), Words(nil)},
			map[string]string{"arrival": ""}, `arrival: "" has 0 items (allowed: at least 1)`},
		{[]Field{Num(0.1), Num(10), Num(10), Num(20), Num(120), Words([]string{"a", "c"})},
			map[string]string{"arrival": "a,c"}, `arrival: "c" is not allowed (allowed: a, b)`},
		// A rule on a parameter at its default is Check's to judge.
		{[]Field{Num(0.1), Num(10), Num(10), Num(20), AtDefault, Words([]string{"a"})},
			map[string]string{"from": "10", "to": "20"}, "nil"},
		{[]Field{Num(0.1), Num(10), Num(30), Num(20), AtDefault, Words([]string{"a"})},
			map[string]string{"from": "30", "to": "20"}, `to: "20" is not above from (30)`},
	} {
		err := testSchema.CheckFields(func() map[string]string { return c.raw }, c.fields...)
		got := "nil"
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("CheckFields with %v written out: %s, want %s", c.raw, got, c.want)
		}
	}
}

// A field of the wrong kind, or too few fields, is a mistake in the
// model's Validate: it panics in the model's first test.
func TestCheckFieldsPanics(t *testing.T) {
	for name, fields := range map[string][]Field{
		"a word for a number": {Word("x"), Num(10), Num(10), Num(20), Num(120), Words([]string{"a"})},
		"one field short":     {Num(0.1), Num(10), Num(10), Num(20), Num(120)},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			testSchema.CheckFields(func() map[string]string { return nil }, fields...)
		}()
	}
}
