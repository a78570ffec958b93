// Command pickupgen writes parcelgate's data set of pick-up points
// (data/pickuppoints.json at the repository root, embedded by the root
// package) from the table of postal code areas below. Run it with
// `go generate` in the repository root; TestDataSetIsGenerated fails when
// the embedded file is not what this program writes.
//
// The data set is a sandbox's, made to be realistic and deterministic, not
// a copy of the provider's network: the areas are real Finnish postal code
// areas with the approximate coordinates of their centres, and each gets a
// post office, parcel lockers and pick-up shops on its main streets, with
// generated street numbers, names and positions scattered within about a
// kilometre and a half of the centre. The same table locates a searched
// postal code or town (see parcelgate.SearchPickupPoints).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
)

// area is a postal code area: its code, post office (the town as written
// in addresses), the district it is known by, the approximate coordinates
// of its centre, main streets, and how many points of each kind it gets.
type area struct {
	code, postOffice, district string
	lat, lon                   float64
	streets                    []string
	lockers, shops             int
}

var areas = []area{
	{"00100", "HELSINKI", "Helsinki Keskusta", 60.1699, 24.9384, []string{"Mannerheimintie", "Aleksanterinkatu", "Kaivokatu", "Simonkatu"}, 5, 3},
	{"00180", "HELSINKI", "Helsinki Ruoholahti", 60.1640, 24.9150, []string{"Porkkalankatu", "Itämerenkatu", "Mechelininkatu"}, 3, 1},
	{"00520", "HELSINKI", "Helsinki Pasila", 60.1986, 24.9334, []string{"Ratapihantie", "Asemapäällikönkatu", "Opastinsilta"}, 3, 2},
	{"00530", "HELSINKI", "Helsinki Kallio", 60.1841, 24.9500, []string{"Hämeentie", "Sturenkatu", "Vaasankatu"}, 3, 2},
	{"00700", "HELSINKI", "Helsinki Malmi", 60.2510, 25.0100, []string{"Malmin kauppatie", "Kirkonkyläntie", "Pekanraitti"}, 2, 2},
	{"00930", "HELSINKI", "Helsinki Itäkeskus", 60.2100, 25.0819, []string{"Itäkatu", "Turunlinnantie", "Kauppakartanonkatu"}, 3, 2},
	{"01300", "VANTAA", "Vantaa Tikkurila", 60.2925, 25.0440, []string{"Tikkurilantie", "Asematie", "Ratatie"}, 3, 2},
	{"01600", "VANTAA", "Vantaa Myyrmäki", 60.2610, 24.8540, []string{"Iskoskuja", "Myyrmäentie", "Paalutori"}, 2, 1},
	{"02100", "ESPOO", "Espoo Tapiola", 60.1756, 24.8050, []string{"Tapiontori", "Länsituulentie", "Merituulentie"}, 3, 2},
	{"02600", "ESPOO", "Espoo Leppävaara", 60.2190, 24.8130, []string{"Leppävaarankatu", "Hevosenkenkä", "Läkkisepänkuja"}, 3, 2},
	{"02770", "ESPOO", "Espoon keskus", 60.2050, 24.6560, []string{"Kirkkojärventie", "Espoonportti", "Siltakatu"}, 2, 1},
	{"02700", "KAUNIAINEN", "Kauniainen", 60.2100, 24.7290, []string{"Kauppatie", "Asematie"}, 1, 1},
	{"04200", "KERAVA", "Kerava", 60.4034, 25.1050, []string{"Kauppakaari", "Asemantie", "Kultasepänkatu"}, 2, 1},
	{"04400", "JÄRVENPÄÄ", "Järvenpää", 60.4737, 25.0899, []string{"Sibeliuskatu", "Helsingintie", "Mannilantie"}, 2, 1},
	{"05800", "HYVINKÄÄ", "Hyvinkää", 60.6310, 24.8610, []string{"Hämeenkatu", "Uudenmaankatu", "Kauppalankatu"}, 2, 1},
	{"06100", "PORVOO", "Porvoo", 60.3932, 25.6650, []string{"Mannerheiminkatu", "Rauhankatu", "Aleksanterinkatu"}, 2, 1},
	{"07900", "LOVIISA", "Loviisa", 60.4560, 26.2250, []string{"Mannerheiminkatu", "Kuningattarenkatu"}, 1, 1},
	{"08100", "LOHJA", "Lohja", 60.2486, 24.0653, []string{"Laurinkatu", "Kauppakatu", "Karstuntie"}, 2, 1},
	{"10600", "RAASEPORI", "Tammisaari", 59.9740, 23.4360, []string{"Kustaa Vaasan katu", "Rantakatu"}, 1, 1},
	{"11100", "RIIHIMÄKI", "Riihimäki", 60.7390, 24.7720, []string{"Hämeenkatu", "Kauppakatu", "Valtakatu"}, 2, 1},
	{"13100", "HÄMEENLINNA", "Hämeenlinna", 60.9960, 24.4640, []string{"Raatihuoneenkatu", "Palokunnankatu", "Reskalantie"}, 2, 2},
	{"15100", "LAHTI", "Lahti", 60.9827, 25.6615, []string{"Aleksanterinkatu", "Vapaudenkatu", "Rautatienkatu"}, 3, 2},
	{"18100", "HEINOLA", "Heinola", 61.2050, 26.0380, []string{"Kauppakatu", "Savontie"}, 1, 1},
	{"20100", "TURKU", "Turku Keskusta", 60.4518, 22.2666, []string{"Aurakatu", "Yliopistonkatu", "Eerikinkatu", "Humalistonkatu"}, 4, 3},
	{"20700", "TURKU", "Turku Kupittaa", 60.4490, 22.2950, []string{"Lemminkäisenkatu", "Joukahaisenkatu", "Itäinen Pitkäkatu"}, 2, 1},
	{"20780", "KAARINA", "Kaarina", 60.4070, 22.3690, []string{"Lautakunnantie", "Oskarinaukio", "Kauppakatu"}, 1, 1},
	{"21200", "RAISIO", "Raisio", 60.4860, 22.1690, []string{"Tasalanaukio", "Raisiontie", "Kauppakatu"}, 1, 1},
	{"22100", "MARIEHAMN", "Mariehamn", 60.0973, 19.9348, []string{"Torggatan", "Storagatan", "Norra Esplanadgatan"}, 1, 1},
	{"23500", "UUSIKAUPUNKI", "Uusikaupunki", 60.8000, 21.4080, []string{"Alinenkatu", "Ylinenkatu"}, 1, 1},
	{"24100", "SALO", "Salo", 60.3840, 23.1260, []string{"Vilhonkatu", "Horninkatu", "Turuntie"}, 2, 1},
	{"26100", "RAUMA", "Rauma", 61.1280, 21.5110, []string{"Kuninkaankatu", "Valtakatu", "Nortamonkatu"}, 2, 1},
	{"28100", "PORI", "Pori", 61.4850, 21.7970, []string{"Yrjönkatu", "Antinkatu", "Itsenäisyydenkatu"}, 3, 2},
	{"30100", "FORSSA", "Forssa", 60.8150, 23.6210, []string{"Hämeentie", "Kutomonkatu"}, 1, 1},
	{"33100", "TAMPERE", "Tampere Keskusta", 61.4978, 23.7610, []string{"Hämeenkatu", "Aleksanterinkatu", "Itsenäisyydenkatu", "Rautatienkatu"}, 5, 3},
	{"33720", "TAMPERE", "Tampere Hervanta", 61.4500, 23.8500, []string{"Insinöörinkatu", "Pietilänkatu", "Hervannan valtaväylä"}, 2, 2},
	{"33470", "YLÖJÄRVI", "Ylöjärvi", 61.5560, 23.5960, []string{"Kuruntie", "Mikkolantie"}, 1, 1},
	{"36200", "KANGASALA", "Kangasala", 61.4640, 24.0650, []string{"Kuohuntie", "Pikkolantie"}, 1, 1},
	{"37100", "NOKIA", "Nokia", 61.4780, 23.5080, []string{"Härkitie", "Välikatu", "Pirkkalaistie"}, 1, 1},
	{"37600", "VALKEAKOSKI", "Valkeakoski", 61.2640, 24.0310, []string{"Valtakatu", "Kauppilankatu"}, 1, 1},
	{"40100", "JYVÄSKYLÄ", "Jyväskylä", 62.2426, 25.7473, []string{"Kauppakatu", "Väinönkatu", "Asemakatu", "Hannikaisenkatu"}, 4, 2},
	{"42100", "JÄMSÄ", "Jämsä", 61.8640, 25.1900, []string{"Jämsäntie", "Keskuskatu"}, 1, 1},
	{"45100", "KOUVOLA", "Kouvola", 60.8680, 26.7040, []string{"Kauppalankatu", "Valtakatu", "Salpausselänkatu"}, 2, 1},
	{"48100", "KOTKA", "Kotka", 60.4664, 26.9458, []string{"Keskuskatu", "Kirkkokatu", "Kaivokatu"}, 2, 1},
	{"49400", "HAMINA", "Hamina", 60.5700, 27.1970, []string{"Raatihuoneentori", "Isoympyräkatu"}, 1, 1},
	{"50100", "MIKKELI", "Mikkeli", 61.6886, 27.2723, []string{"Porrassalmenkatu", "Hallituskatu", "Maaherrankatu"}, 2, 1},
	{"53100", "LAPPEENRANTA", "Lappeenranta", 61.0587, 28.1887, []string{"Valtakatu", "Kauppakatu", "Raatimiehenkatu"}, 2, 2},
	{"55100", "IMATRA", "Imatra", 61.1720, 28.7640, []string{"Tainionkoskentie", "Koskenparras"}, 1, 1},
	{"57100", "SAVONLINNA", "Savonlinna", 61.8690, 28.8790, []string{"Olavinkatu", "Kauppatori", "Tulliportinkatu"}, 1, 1},
	{"60100", "SEINÄJOKI", "Seinäjoki", 62.7903, 22.8403, []string{"Kauppakatu", "Koulukatu", "Valtionkatu"}, 2, 1},
	{"65100", "VAASA", "Vaasa", 63.0951, 21.6165, []string{"Hovioikeudenpuistikko", "Kauppapuistikko", "Vaasanpuistikko"}, 2, 2},
	{"67100", "KOKKOLA", "Kokkola", 63.8385, 23.1307, []string{"Rantakatu", "Isokatu", "Torikatu"}, 2, 1},
	{"68600", "PIETARSAARI", "Pietarsaari", 63.6750, 22.7030, []string{"Kauppiaankatu", "Isokatu"}, 1, 1},
	{"70100", "KUOPIO", "Kuopio", 62.8924, 27.6770, []string{"Puijonkatu", "Kauppakatu", "Haapaniemenkatu"}, 3, 2},
	{"74100", "IISALMI", "Iisalmi", 63.5590, 27.1900, []string{"Savonkatu", "Pohjolankatu"}, 1, 1},
	{"76100", "PIEKSÄMÄKI", "Pieksämäki", 62.3000, 27.1330, []string{"Keskuskatu", "Savontie"}, 1, 1},
	{"78200", "VARKAUS", "Varkaus", 62.3150, 27.8730, []string{"Ahlströminkatu", "Relanderinkatu"}, 1, 1},
	{"80100", "JOENSUU", "Joensuu", 62.6010, 29.7636, []string{"Siltakatu", "Kauppakatu", "Torikatu"}, 2, 2},
	{"84100", "YLIVIESKA", "Ylivieska", 64.0730, 24.5380, []string{"Kauppatie", "Ratakatu"}, 1, 1},
	{"87100", "KAJAANI", "Kajaani", 64.2270, 27.7280, []string{"Kauppakatu", "Pohjolankatu", "Kalliokatu"}, 1, 1},
	{"90100", "OULU", "Oulu Keskusta", 65.0121, 25.4651, []string{"Kirkkokatu", "Isokatu", "Kauppurienkatu", "Hallituskatu"}, 4, 2},
	{"90420", "OULU", "Oulu Kaakkuri", 64.9760, 25.5260, []string{"Kaakkurintie", "Ritaharjuntie"}, 1, 1},
	{"92100", "RAAHE", "Raahe", 64.6840, 24.4790, []string{"Kauppakatu", "Rantakatu"}, 1, 1},
	{"93600", "KUUSAMO", "Kuusamo", 65.9640, 29.1880, []string{"Kitkantie", "Ouluntie"}, 1, 1},
	{"94100", "KEMI", "Kemi", 65.7360, 24.5640, []string{"Keskuspuistokatu", "Valtakatu"}, 1, 1},
	{"95400", "TORNIO", "Tornio", 65.8480, 24.1470, []string{"Hallituskatu", "Länsiranta"}, 1, 1},
	{"96100", "ROVANIEMI", "Rovaniemi", 66.5039, 25.7294, []string{"Koskikatu", "Rovakatu", "Valtakatu"}, 2, 1},
	{"98100", "KEMIJÄRVI", "Kemijärvi", 66.7130, 27.4310, []string{"Vapaudenkatu", "Kirkkokatu"}, 1, 0},
	{"99100", "KITTILÄ", "Kittilä", 67.6590, 24.9110, []string{"Valtatie", "Jokijärventie"}, 1, 0},
	{"99600", "SODANKYLÄ", "Sodankylä", 67.4160, 26.5890, []string{"Jäkäläntie", "Sodankyläntie"}, 1, 0},
	{"99800", "IVALO", "Ivalo", 68.6580, 27.5390, []string{"Ivalontie", "Piiskuntie"}, 1, 0},
}

// shopNames are the pick-up shops' names: generic, no real chain's.
var shopNames = []string{"Kulmakioski", "Lähikauppa Tori", "Asemakioski", "Kauppa Keskus", "Pikkukauppa", "Kioski Aukio", "Lähimarket", "Palvelupiste Kulma"}

// hours are the opening hours of each kind of point.
var hours = map[string][]dayHours{
	"POST_OFFICE":   week("09:00", "18:00", "10:00", "14:00", "", ""),
	"PICKUP_POINT":  week("07:00", "21:00", "09:00", "21:00", "11:00", "20:00"),
	"PARCEL_LOCKER": week("00:00", "24:00", "00:00", "24:00", "00:00", "24:00"),
}

type dayHours struct {
	Day    string `json:"day"`
	Opens  string `json:"opens"`
	Closes string `json:"closes"`
}

func week(wdOpen, wdClose, satOpen, satClose, sunOpen, sunClose string) []dayHours {
	var out []dayHours
	for _, d := range []string{"MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"} {
		out = append(out, dayHours{d, wdOpen, wdClose})
	}
	out = append(out, dayHours{"SATURDAY", satOpen, satClose})
	if sunOpen != "" {
		out = append(out, dayHours{"SUNDAY", sunOpen, sunClose})
	}
	return out
}

// The data set's JSON: what parcelgate's root package embeds. Opening
// hours are given once per type of point.
type dataSet struct {
	OpeningHours map[string][]dayHours `json:"openingHours"`
	Areas        []areaJSON            `json:"areas"`
	Points       []pointJSON           `json:"points"`
}

type areaJSON struct {
	PostalCode string  `json:"postalCode"`
	PostOffice string  `json:"postOffice"`
	District   string  `json:"district"`
	Latitude   float64 `json:"latitude"`
	Longitude  float64 `json:"longitude"`
}

type pointJSON struct {
	ExternalID      string   `json:"externalId"`
	Name            string   `json:"name"`
	Type            string   `json:"type"`
	ServiceProvider string   `json:"serviceProvider"`
	StreetAddress   string   `json:"streetAddress"`
	PostalCode      string   `json:"postalCode"`
	PostOffice      string   `json:"postOffice"`
	Country         string   `json:"country"`
	Latitude        float64  `json:"latitude"`
	Longitude       float64  `json:"longitude"`
	Capabilities    []string `json:"capabilities"`
	ServiceCodes    []string `json:"serviceCodes"`
}

func main() {
	if err := write(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "pickupgen:", err)
		os.Exit(1)
	}
}

// write writes the data set as JSON with one area or point a line, so a
// change to the table shows as a readable diff.
func write(w io.Writer) error {
	ds := generate()
	var b bytes.Buffer
	line := func(prefix string, v any, last bool) {
		b.WriteString(prefix)
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(v) // the data set's own types: cannot fail
		if !last {
			b.Truncate(b.Len() - 1)
			b.WriteString(",\n")
		}
	}
	b.WriteString("{\n")
	line(`"openingHours": `, ds.OpeningHours, false)
	b.WriteString(`"areas": [` + "\n")
	for i, a := range ds.Areas {
		line("", a, i == len(ds.Areas)-1)
	}
	b.WriteString("],\n" + `"points": [` + "\n")
	for i, p := range ds.Points {
		line("", p, i == len(ds.Points)-1)
	}
	b.WriteString("]\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

func generate() dataSet {
	ds := dataSet{OpeningHours: hours}
	for _, a := range areas {
		ds.Areas = append(ds.Areas, areaJSON{a.code, a.postOffice, a.district, a.lat, a.lon})
		seq := 0
		add := func(kind, name string, capabilities ...string) {
			seq++
			id := fmt.Sprintf("%s%02d", a.code, seq)
			h := hash(id)
			street := a.streets[int(h%uint64(len(a.streets)))]
			number := 1 + int(h>>8%60)
			lat, lon := scatter(a.lat, a.lon, h)
			ds.Points = append(ds.Points, pointJSON{
				ExternalID: id, Name: name, Type: kind, ServiceProvider: "Posti",
				StreetAddress: fmt.Sprintf("%s %d", street, number), PostalCode: a.code, PostOffice: a.postOffice, Country: "FI",
				Latitude: lat, Longitude: lon, Capabilities: append([]string{}, capabilities...),
				// Pick-up points are where 2103 (postal parcel to an
				// outlet or parcel locker, spec 2.3) delivers.
				ServiceCodes: []string{"2103"},
			})
		}
		add("POST_OFFICE", "Posti "+a.district, "cashOnDelivery")
		for i := range a.lockers {
			// Every other locker stands outdoors, open around the clock.
			caps := []string{}
			if i%2 == 1 {
				caps = []string{"outdoors"}
			}
			add("PARCEL_LOCKER", fmt.Sprintf("Pakettiautomaatti %s %c", a.district, 'A'+i), caps...)
		}
		for i := range a.shops {
			add("PICKUP_POINT", fmt.Sprintf("%s %s", shopNames[int(hash(a.code+fmt.Sprint(i))%uint64(len(shopNames)))], a.district), "cashOnDelivery")
		}
	}
	return ds
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// scatter places a point up to about 1.5 km from the centre, in a
// direction and at a distance taken from h, rounded to 5 decimals (1 m).
func scatter(lat, lon float64, h uint64) (float64, float64) {
	angle := float64(h>>16%3600) / 3600 * 2 * math.Pi
	km := 0.1 + float64(h>>32%1400)/1000
	dLat := km * math.Cos(angle) / 111.32
	dLon := km * math.Sin(angle) / (111.32 * math.Cos(lat*math.Pi/180))
	round := func(v float64) float64 { return math.Round(v*1e5) / 1e5 }
	return round(lat + dLat), round(lon + dLon)
}
