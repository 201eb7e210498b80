package mapping

import (
	"reflect"
	"strings"
	"testing"

	"calshim/mapping/php"
)

func TestCost(t *testing.T) {
	tests := []struct {
		name   string
		rows   []string
		format CostFormat
		want   EventCost
	}{
		{"no row", nil, CostFormat{}, EventCost{"", []string{}, ""}},
		{"empty rows", []string{"", ""}, CostFormat{}, EventCost{"", []string{}, ""}},
		{"number without symbol: default for display only", []string{"10"}, CostFormat{}, EventCost{"$10", []string{"10"}, "10"}},
		{"stored symbol and position", []string{"25"}, CostFormat{Symbol: "$", Position: "prefix"}, EventCost{"$25", []string{"25"}, "25"}},
		{"symbol in the text", []string{"$25"}, CostFormat{}, EventCost{"$25", []string{"25"}, "25"}},
		{"Free text", []string{"Free"}, CostFormat{}, EventCost{"Free", []string{"free"}, "0"}},
		{"zero", []string{"0"}, CostFormat{}, EventCost{"Free", []string{"0"}, "0"}},
		{"zero with decimals", []string{"0.00"}, CostFormat{}, EventCost{"Free", []string{"0.00"}, "0"}},
		{"range", []string{"5-10"}, CostFormat{}, EventCost{"$5 \u2013 $10", []string{"5", "10"}, "5 \u2013 10"}},
		{"euro range", []string{"€6.50 - €8.50"}, CostFormat{Symbol: "€", Position: "prefix"},
			EventCost{"€6.50 \u2013 €8.50", []string{"6.50", "8.50"}, "6.50 \u2013 8.50"}},
		{"postfix", []string{"20$"}, CostFormat{Symbol: "$", Position: "postfix"}, EventCost{"20$", []string{"20"}, "20"}},
		{"several rows, free low end", []string{"0$", "20$", "30$"}, CostFormat{Symbol: "$", Position: "postfix"},
			EventCost{"Free \u2013 30$", []string{"0", "20", "30"}, "Free \u2013 30"}},
		{"rows sorted numerically, not as text", []string{"100", "25", "9"}, CostFormat{},
			EventCost{"$9 \u2013 $100", []string{"9", "25", "100"}, "9 \u2013 100"}},
		{"decimal comma", []string{"25,55"}, CostFormat{}, EventCost{"$25,55", []string{"25.55"}, "25,55"}},
		{"thousands comma", []string{"1,000"}, CostFormat{}, EventCost{"$1,000", []string{"1000"}, "1,000"}},
		{"text kept, escaped", []string{"Tickets & more"}, CostFormat{}, EventCost{"Tickets &amp; more", []string{"tickets-more"}, "Tickets &amp; more"}},
		{"donation", []string{"Donation"}, CostFormat{}, EventCost{"Donation", []string{"donation"}, "Donation"}},
		{"number and text rows: the number wins", []string{"10", "Free"}, CostFormat{}, EventCost{"$10", []string{"free", "10"}, "10"}},
		{"two texts: nothing numeric reads Free", []string{"Donation", "Pay what you can"}, CostFormat{},
			EventCost{"Free", []string{"donation", "pay-what-you-can"}, "0"}},
		{"decimals across rows", []string{"5", "5.50"}, CostFormat{}, EventCost{"$5 \u2013 $5.50", []string{"5", "5.50"}, "5 \u2013 5.50"}},
		{"as the original, thousands and decimals split in two numbers", []string{"$1,500.75"}, CostFormat{},
			EventCost{"$.75", []string{".75", "1500"}, ".75"}},
		{"default symbol option", []string{"10"}, CostFormat{DefaultSymbol: "€"}, EventCost{"€10", []string{"10"}, "10"}},
		{"reverse position option", []string{"10"}, CostFormat{Reverse: true}, EventCost{"10$", []string{"10"}, "10"}},
		{"own position beats the option", []string{"10"}, CostFormat{Position: "prefix", Reverse: true}, EventCost{"$10", []string{"10"}, "10"}},
		{"HTML in the symbol escaped", []string{"10"}, CostFormat{Symbol: "<b>"}, EventCost{"&lt;b&gt;10", []string{"10"}, "10"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Cost(tc.rows, tc.format); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Cost(%q) = %#v, want %#v", tc.rows, got, tc.want)
			}
		})
	}
}

func TestCostValuesEncodeAsList(t *testing.T) {
	if got := string(EncodeJSON(Cost(nil, CostFormat{}).Values)); got != "[]" {
		t.Errorf("values = %s, want []", got)
	}
}

func FuzzCost(f *testing.F) {
	for _, s := range []string{"10", "Free", "5-10", "€6.50 - €8.50", "$25", "0", "20$", "1,000.50", ",5,", "..", "1e5", "免费", "\xff"} {
		f.Add(s, "")
	}

	f.Add("0$", "30$")
	f.Add("Donation", "12,5")
	f.Fuzz(func(t *testing.T, a, b string) {
		rows := []string{a, b}
		format := CostFormat{Symbol: "$", Position: "prefix"}
		got := Cost(rows, format)
		if again := Cost(rows, format); !reflect.DeepEqual(got, again) {
			t.Fatalf("Cost(%q) not stable: %#v then %#v", rows, got, again)
		}
		if got.Values == nil {
			t.Fatalf("Cost(%q).Values is nil", rows)
		}
		if (got.Cost == "") != (len(got.Values) == 0) || (got.Cost == "") != (got.Price == "") {
			t.Fatalf("Cost(%q) = %#v: cost, values and price disagree on whether there is a cost", rows, got)
		}
		if strings.ContainsAny(got.Cost, "<>\"") {
			t.Fatalf("Cost(%q).Cost = %q is not HTML-escaped", rows, got.Cost)
		}
		for i := 1; i < len(got.Values); i++ {
			if php.Float(got.Values[i-1]) > php.Float(got.Values[i]) {
				t.Fatalf("Cost(%q).Values = %q not in numeric order", rows, got.Values)
			}
		}
	})
}
