/**
 * Custom document properties (docProps/custom.xml), which a DOCPROPERTY field shows: setting one
 * together with the content type and root relationship the part needs.
 */
import { CUSTOM_PROPERTIES_TYPE, withOverrideContentType } from './content-types';
import { REL_CUSTOM_PROPERTIES } from './relationships';

export const CUSTOM_PROPERTIES_PART = 'docProps/custom.xml';
/** The format id every custom property carries (ECMA-376 part 1, 22.3.2.2). */
const FMTID = '{D5CDD505-2E9C-101B-9397-08002B2CF9AE}';
const VT_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes';

export interface PackageProperties {
  /** docProps/custom.xml, when the package has one. */
  custom?: string;
  contentTypes: string;
  rootRels: string;
}

/**
 * The package's custom properties, content types and root relationships with the string property
 * `name` added as `value` (relationship id `relId` if the root needs one), or null when its
 * custom.xml is not one this can add to, or has `name` already.
 */
export function withCustomProperty(
  pkg: PackageProperties,
  name: string,
  value: string,
  relId: string,
): Required<PackageProperties> | null {
  const property = (pid: number) =>
    `<property fmtid="${FMTID}" pid="${pid}" name="${name}"><vt:lpwstr>${value}</vt:lpwstr></property>`;
  let custom: string;
  if (pkg.custom === undefined) {
    custom =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" ' +
      `xmlns:vt="${VT_NS}">${property(2)}</Properties>`;
  } else {
    // Word's own form only: default namespace, vt prefix, properties numbered from 2.
    const end = pkg.custom.lastIndexOf('</Properties>');
    if (end < 0 || !pkg.custom.includes(`xmlns:vt="${VT_NS}"`)) return null;
    if (pkg.custom.includes(`name="${name}"`)) return null;
    const pids = [...pkg.custom.matchAll(/\bpid="(\d+)"/g)].map((m) => Number(m[1]));
    custom = pkg.custom.slice(0, end) + property(Math.max(1, ...pids) + 1) + pkg.custom.slice(end);
  }
  const contentTypes = withOverrideContentType(
    pkg.contentTypes,
    `/${CUSTOM_PROPERTIES_PART}`,
    CUSTOM_PROPERTIES_TYPE,
  );
  const rootRels = pkg.rootRels.includes(REL_CUSTOM_PROPERTIES)
    ? pkg.rootRels
    : pkg.rootRels.replace(
        /<\/Relationships>\s*$/,
        `<Relationship Id="${relId}" Type="${REL_CUSTOM_PROPERTIES}" Target="${CUSTOM_PROPERTIES_PART}"/></Relationships>`,
      );
  if (!contentTypes.includes(CUSTOM_PROPERTIES_TYPE) || !rootRels.includes(REL_CUSTOM_PROPERTIES))
    return null;
  return { custom, contentTypes, rootRels };
}
