/**
 * The simulator's command-line help (`detection-bridge-sim --help`) and the
 * names it shares with the parser (./cli-args.ts): the program's name and
 * the environment variables that carry secrets.
 */
import { DELIVERY_DEFAULTS } from './delivery-options';
import { DEFAULT_SAMPLE_HOST, DEFAULT_SAMPLE_PORT } from './sample-server';
import { TIME_OF_DAY_NAMES } from './scenario';

export const PROG = 'detection-bridge-sim';

export const ENV_PASSWORD = 'DETECTION_SIM_PASSWORD';
export const ENV_TOKEN = 'DETECTION_SIM_TOKEN';
export const ENV_HEADER_VALUE = 'DETECTION_SIM_HEADER_VALUE';
export const ENV_JWT = 'DETECTION_SIM_JWT';

export const USAGE = `Usage:
  ${PROG} serve [options]           serve the events bridge's sample and enrollment endpoints
  ${PROG} send --url URL [options]  deliver face and plate events to a receiver, as the bridge does
  ${PROG} --help                    this text (also: ${PROG} help, ${PROG} <command> --help)

serve: GET {base}/api/v1/webhook-models/face and /lpr answer 200 with a fully
populated example event (fresh messageId and timestamps, two-byte filler
images, serverContext null). The enrollment endpoints keep what is enrolled
in memory, behind a JWT printed at start:
  PUT, DELETE, GET {base}/api/v1/lpr/monitor/{externalId}     enroll, unenroll, check a plate
  GET              {base}/api/v1/lpr/monitored                 list (paged with ?page=N&pageSize=M,
                                                               the simulator's own: the bridge
                                                               documents no paging)
  and the same under {base}/api/v1/faces/ (the photo as base64 in "faceImage").
They answer 200, 401 (no or another JWT) or 500 with a reason. Any other
/api/v1/ path without "Authorization: Bearer <JWT>" answers 401 with a JSON
problem body.
  --port N              port to listen on (default ${DEFAULT_SAMPLE_PORT}; 0 picks a free port)
  --host ADDRESS        address to listen on (default ${DEFAULT_SAMPLE_HOST}; 0.0.0.0 for every interface)
  --base-path PATH      path prefix, as the cloud bridge has (e.g. /eventsbridge; default none)
  --tls-self-signed     serve HTTPS with a throw-away self-signed certificate (its SHA-256
                        fingerprint is printed; clients must accept self-signed certificates)
  --tls-cert FILE       serve HTTPS with this PEM certificate (needs --tls-key)
  --tls-key FILE        the PEM private key for --tls-cert
  --core                also serve a mock platform v2 core under /api/v2/ on the same port
                        (user admin, password secret; POS instances pos-main-bar, pos-restaurant)
  --jwt TOKEN           the JWT the enrollment endpoints accept (or set ${ENV_JWT});
                        default: a new one, printed at start
  --send-to URL         also deliver events to this receiver, as send --url does (repeat it
                        for round robin), drawing plates and faces from what is enrolled:
                        their events carry the externalId and, as "fields", the
                        additionalFields given at enrollment; the others carry externalId
                        null. Every send option below applies; sending stops with serve.
  --enrolled-share F    with --send-to: the fraction of each kind's events that show an
                        enrolled plate or face while any is enrolled, 0 to 1 (default ${DELIVERY_DEFAULTS.enrolledShare})
  --quiet               do not log requests

send: POSTs events with a fresh messageId each; success only on a 2xx answer.
A replay carries "resentEvent": true and the same messageId. A slow answer
hits --timeout and is retried, so a slow receiver sees the event twice.
  --url URL             the receiver, http:// or https:// (required); repeat it for several
                        instances behind one address: attempts go to them in turn, round
                        robin (event n first to the n-th URL), so a retry goes to the next one
  --count N             events to send (default ${DELIVERY_DEFAULTS.count})
  --forever             send until stopped with Ctrl-C (SIGINT) or SIGTERM; not with --count
  --rate R              new events per second (default ${DELIVERY_DEFAULTS.rate}; 0 = no pacing, as fast
                        as --concurrency allows)
  --mix F               fraction of plate events, 0 to 1; the rest are faces (default ${DELIVERY_DEFAULTS.mix})
  --auth MODE           credentials on every request: none, basic, bearer or header
                        (default: implied by the options below, else none)
  --user NAME           basic: user name
  --password SECRET     basic: password (or set ${ENV_PASSWORD})
  --token TOKEN         bearer: token, sent as "Authorization: Bearer TOKEN" (or set ${ENV_TOKEN})
  --header-name NAME    header: the header's name, e.g. X-Api-Key
  --header-value VALUE  header: the header's value (or set ${ENV_HEADER_VALUE})
  --images MODE         the events' images: pictures (default: small real JPEGs that show the
                        event's plate or the person's name: a face, an enrolled photo and one
                        per plate crop: Close, Medium, Car, FullFrame, Other), realistic (the
                        same pictures at the bridge's sizes: plate events of about 1 MiB, face
                        events of about 370 KiB), fillers (the two-byte images of the sample
                        endpoints, not pictures) or none (no image fields, as some bridges send)
  --realistic-images    the same as --images realistic
  --resilient           retry until the receiver answers 200 (only 200), every --retry-delay ms,
                        without limit
  --retry-delay MS      resilient: pause between attempts; otherwise the first backoff, doubled
                        on each retry up to 30 s (default ${DELIVERY_DEFAULTS.retryDelayMs})
  --timeout MS          per attempt: no complete answer within MS is a timeout, then a retry
                        (default ${DELIVERY_DEFAULTS.timeoutMs})
  --retries N           without --resilient: retries before an event counts as failed
                        (default ${DELIVERY_DEFAULTS.retries}; 0 = no retry)
  --concurrency N       most events in delivery at once; an event keeps its slot through
                        its retries (default ${DELIVERY_DEFAULTS.concurrency})
  --insecure            accept the receiver's self-signed (or otherwise untrusted) certificate
  --ca FILE             trust a receiver certificate signed by this PEM certificate (a self-signed
                        certificate is its own CA: give the certificate itself)
  --fingerprint SHA256  accept exactly the receiver certificate with this SHA-256 fingerprint
                        (AB:CD:… as a detection listener's dialog shows it), whatever its names
  --summary-json FILE   also write the summary as JSON to FILE
  --quiet               no progress lines on stderr; the summary table is still printed

What the events show (send, and serve --send-to). Without these, every plate
event is XYZ987 and every face John Michael Doe, both tagged VIP, detected
now: the built-in samples. Lists are separated by commas (or give the option
again); a tag is NAME or NAME@DATE (expires that day, e.g. VIP@2030-12-31).
  --scenario NAME|FILE  a built-in scenario: mixed (plates and faces, VIP and Banned and
                        untagged, day and night, six cameras at three sites in three time
                        zones) or sample (the built-in samples); or a JSON file:
                          { "plates": ["ABC123:Banned", {"plate": "XYZ987", "tags": ["VIP"]}],
                            "faces": ["Jane Roe:VIP", "Max Mustermann"],
                            "cameras": [{"name": "Gate 2 LPR", "kind": "plate",
                                         "site": "Site 1", "timeZone": "America/New_York"}],
                            "sites": [{"name": "Site 1", "serverContext": {"SiteId": "1"}}],
                            "timeZones": ["America/New_York"], "timesOfDay": ["night"],
                            "tagPrefix": "partner", "seed": 7 }
                        every key may be left out; the options below replace the file's lists;
                        a plate or person with "images": false is sent without pictures
  --plates LIST         plates, each PLATE or PLATE:TAG:TAG…, e.g. "ABC123:Banned,XYZ987:VIP,KLM456"
                        (no tag: an untagged plate); only plates given: every event is a plate
  --faces LIST          people, each "First [Middle] Last" or "First Last:TAG…", e.g.
                        "Jane Roe:VIP,Max Mustermann" (no tag: nobody's VIP); only faces
                        given: every event is a face (--mix still wins)
  --cameras LIST        camera names (the events' detectorName), for both kinds, or
                        plate:NAME / face:NAME for one, e.g. "plate:Gate 2 LPR,face:Lobby Cam"
  --sites LIST          site names (the events' sourceName)
  --time-zone LIST      IANA time zones, e.g. America/New_York (a camera's own zone wins)
  --time-of-day LIST    ${TIME_OF_DAY_NAMES.join(', ')} or a local time HH:MM; the event's
                        dateTimeUtc is the latest moment, not after now, when it was that
                        time in its zone (night: 22:00 to 05:59; day: 08:00 to 17:59;
                        morning 06-12, afternoon 12-18, evening 18-22); default now
  --tag-prefix PREFIX   tags as the integrator's account sends them: PREFIX-NAME
  --seed N              the same seed, the same plates, faces, cameras and local times
                        (default: the scenario's seed, else a random one, printed at start)
  e.g. ${PROG} send --url URL --plates "ABC123:Banned,XYZ987:VIP" --time-of-day night \\
         --time-zone America/New_York

The summary (stdout) counts events sent, attempts, acknowledged, retried
(replays), failed, abandoned (unfinished when stopped), answers by status
code, attempts without an answer, and latency p50/p90/p99/max of acknowledged
attempts.

Exit codes: 0 done (every finished event acknowledged; a stop is not a
failure), 1 some events failed or the program failed, 2 bad command line.
`;
