import type { Violation } from './common.js';
import type { Address } from './shapes.js';

/** ISO 3166-1 alpha-2: the 249 officially assigned codes. */
const COUNTRY_CODES = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
    'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
    'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

export function isCountryCode(code: string): boolean {
  return COUNTRY_CODES.has(code);
}

/**
 * Rules of an Address that its schema cannot say: address information (city, zip code, country) or a
 * geo point must be present, and the country code names a real country. `path` is the address's
 * JSON path in the body, for the violations' `field`.
 */
export function addressViolations(address: Address, path: string): Violation[] {
  const violations: Violation[] = [];
  if (address.geo_point === undefined) {
    for (const field of ['city', 'zip_code', 'country_code'] as const) {
      if (address[field] === undefined) {
        violations.push({ field: `${path}.${field}`, message: 'is required when no geo_point is given' });
      }
    }
  }
  if (address.country_code !== undefined && !isCountryCode(address.country_code)) {
    violations.push({ field: `${path}.country_code`, message: 'must be an ISO 3166-1 alpha-2 country code' });
  }
  return violations;
}

/** The stored form of an address: `geo_point.resolved` is read-only and never taken from a request. */
export function withoutResolved<A extends Address>(address: A): A {
  if (address.geo_point === undefined) return address;
  const { resolved: _ignored, ...geoPoint } = address.geo_point;
  return { ...address, geo_point: geoPoint };
}
