#!/bin/sh
# Runs a real client nobody on this project wrote, the third-party CLI
# hatlabs/posti-cli (Python, MIT), unchanged against `parcelgate serve
# --demo`: its pickuppoints (search, list, get), estimate, methods list and
# shipment create (with each of its methods) commands.
# The CLI fetches its token from the provider's fixed
# https://gateway-auth.posti.fi address; internal/tools/realclient/tlsproxy
# answers that host locally (https_proxy, and a throw-away CA trusted by
# SSL_CERT_FILE). The API base is the CLI's own setting, POSTI_V2_URL.
#
# Needs: go, git, python3 with click and prompt_toolkit (Debian:
# apt-get install python3-click python3-prompt-toolkit). POSTI_CLI_DIR may
# name a checkout of posti-cli; otherwise it is cloned at the pinned
# commit into a temporary directory (never into this repository).
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
COMMIT=e078dfeb07cc675580ddc1db3acaf0cded5663f2
PORT=${PORT:-18931}
PYTHON=${PYTHON:-python3}
WORK=$(mktemp -d)
SERVER= PROXY=
cleanup() {
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
	[ -n "$PROXY" ] && kill "$PROXY" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

if [ -z "${POSTI_CLI_DIR:-}" ]; then
	git clone -q https://github.com/hatlabs/posti-cli "$WORK/posti-cli"
	git -C "$WORK/posti-cli" checkout -q "$COMMIT"
	POSTI_CLI_DIR=$WORK/posti-cli
fi
(cd "$ROOT" && go build -o "$WORK/parcelgate" ./cmd/parcelgate && go build -o "$WORK/tlsproxy" ./internal/tools/realclient/tlsproxy)

cd "$WORK"
./parcelgate serve --demo --addr "127.0.0.1:$PORT" >serve.log 2>&1 &
SERVER=$!
./tlsproxy -target "http://127.0.0.1:$PORT" -ca ca.pem >proxy.addr 2>proxy.log &
PROXY=$!
i=0
until "$PYTHON" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/healthz')" 2>/dev/null && [ -s proxy.addr ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat serve.log; echo "parcelgate did not start" >&2; exit 1; }
	sleep 0.2
done

export PYTHONPATH="$POSTI_CLI_DIR/src" https_proxy="http://$(cat proxy.addr)" SSL_CERT_FILE="$WORK/ca.pem" \
	POSTI_OAUTH_CLIENT_ID=demo-client POSTI_OAUTH_CLIENT_SECRET=demo-client-secret \
	POSTI_V2_URL="http://127.0.0.1:$PORT/2025-04" no_proxy=127.0.0.1
cli() { echo "\$ posti-cli $*" >&2; "$PYTHON" -m posti_cli "$@"; }
check() { "$PYTHON" -c "import json,sys; d=json.load(sys.stdin); $1" || { echo "FAIL: $1" >&2; exit 1; }; }

cli pickuppoints search -d '{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI","street":"Mannerheimintie","city":"Helsinki"},"serviceFilters":{}},"limit":8}' |
	check "p=d['pickupPoints']; assert len(p)==8 and p[0]['id']=='001003230' and p[0]['distanceInMeters']==292 and p[1]['id']=='001003200', p[0]; print(len(p), p[0]['id'], p[0]['publicName'], p[0]['distanceInMeters'])"
cli pickuppoints search -l en -d '{"searchCriteria":{"location":{"coordinates":{"latitude":60.17,"longitude":24.93},"radius":{"unit":"m","value":2000}},"parcelLocker":true},"limit":3}' |
	check "p=d['pickupPoints']; assert p and all(x['parcelLocker'] and x['distanceInMeters']<=2000 for x in p); [print(x['id'], x['publicName'], x['distanceInMeters']) for x in p]"
cli pickuppoints list FI |
	check "p=d['pickupPoints']; assert len(p)==250 and d['pagingContinuationToken']; print(len(p), p[0]['id'], '...', p[-1]['id'], 'next page token', d['pagingContinuationToken'])"
cli pickuppoints get FI 001003200 -l sv |
	check "p=d['pickupPoints'][0]; assert p['id']=='001003200' and p['location']['city']=='Helsingfors'; print(p['id'], p['publicName'], p['location']['street'], p['location']['postcode'], p['location']['city'])"
cli estimate -d '{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","postcode":"20100"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}' |
	check "assert d=={'estimates':[{'time':'2026-03-16T14:00:00Z'}]}, d; print(json.dumps(d))"
# shipment create (decisions §29): the shipping API's base is the CLI's --url;
# it posts with ?returnFile=true and saves each print's PDF.
cli --url "http://127.0.0.1:$PORT/shippingapi/api" shipment create --output-dir labels -d '{"printConfig":{"target1Media":"thermo-225"},"shipment":{"senderPartners":[{"id":"POSTI","custNo":"677503"}],"sender":{"name":"Kauppa Oy","address1":"Mannerheimintie 1","zipcode":"00100","city":"Helsinki","country":"FI"},"receiver":{"name":"Matti Meikäläinen","address1":"Hämeenkatu 5","zipcode":"33100","city":"Tampere","country":"FI"},"agent":{"quickId":"331003401"},"service":{"id":"PO2103","addons":[{"id":"3196"}]},"parcels":[{"copies":2,"weight":5,"packageCode":"PKT","contents":"Goods"}]}}' |
	check "s=d[0]; n=[p['parcelNo'] for p in s['parcels']]; assert len(n)==2 and s['prints'][0]['pdf_type']=='ADDRESSLABEL', s; print(s['shipmentNo'], n, s['prints'][0]['media'])"
# Each of the CLI's other methods (`methods list`; decisions §39), as a
# user runs them: the pick-up ones with agent.quickId, a point the CLI's own
# search finds in the receiver's country (an ID of a country whose points
# parcelgate does not hold is taken as given).
cli --json methods list | check "assert [m['code'] for m in d]==['PO2103','PO2351','PO2331','PO2352','PO2015','PO2017'], d"
point() {
	cli pickuppoints search -d "{\"searchCriteria\":{\"location\":{\"countryCode\":\"$1\",\"postcode\":\"$2\"}},\"limit\":1}" 2>/dev/null |
		"$PYTHON" -c "import json,sys; p=json.load(sys.stdin).get('pickupPoints') or [{'id':'100010001'}]; print(p[0]['id'])" || echo 100010001
}
for m in "PO2351 EE 10117 Tallinn $(point EE 10117)" "PO2331 LV LV-1010 Riga $(point LV LV-1010)" "PO2352 LT 01103 Vilnius -" "PO2015 DE 10115 Berlin -" "PO2017 US 10001 New-York -"; do
	set -- $m
	agent=
	[ "$5" = - ] || agent="\"agent\":{\"quickId\":\"$5\"},"
	cli --url "http://127.0.0.1:$PORT/shippingapi/api" shipment create --output-dir labels -d "{\"printConfig\":{\"target1Media\":\"laser-a5\"},\"shipment\":{\"senderPartners\":[{\"id\":\"POSTI\",\"custNo\":\"677503\"}],\"sender\":{\"name\":\"Kauppa Oy\",\"address1\":\"Mannerheimintie 1\",\"zipcode\":\"00100\",\"city\":\"Helsinki\",\"country\":\"FI\"},\"receiver\":{\"name\":\"Receiver\",\"address1\":\"Street 1\",\"zipcode\":\"$3\",\"city\":\"$4\",\"country\":\"$2\"},$agent\"service\":{\"id\":\"$1\"},\"parcels\":[{\"copies\":1,\"weight\":1.5,\"packageCode\":\"PKT\",\"contents\":\"Goods\"}]}}" |
		check "s=d[0]; n=s['parcels'][0]['parcelNo']; assert n.endswith('FI') and len(n)==13 and s['prints'][0]['data'], s; print('$1', '$2', n)"
done
for f in labels/*_ADDRESSLABEL.pdf; do
	head -c 5 "$f" | grep -q '%PDF-' || { echo "FAIL: $f is not a PDF" >&2; exit 1; }
	if command -v pdfinfo >/dev/null; then pdfinfo "$f" | grep -E '^(Pages|Page size):' >&2; fi
done
# The provider's strictness, as the CLI reports it: exit 1 and the message.
if cli pickuppoints search -d '{"searchCriteria":{"location":{"postalCode":"00100"}}}' 2>err.txt; then
	echo "FAIL: an unknown field was accepted" >&2
	exit 1
fi
grep -q 'searchCriteria.location.postalCode' err.txt && cat err.txt >&2
echo "posti-cli: all commands ran against parcelgate" >&2
