import { Node } from './coerce';
import type { Tree } from './format';

/**
 * The daemon's configuration servlet, `GET /conf?name=KEY` (Hadoop's ConfServlet, on every
 * daemon's web port beside /ws). JSON: `{"property":{"key","value","isFinal","resource"}}`;
 * XML: `<configuration><property><name/><value/>…</property></configuration>`. Without `name`
 * the JSON form is `{"properties":[…]}`; all three are read. Undefined when the key is absent.
 */
export const CONF_PATH = '/conf';

/** The RM caps every application priority at this (yarn-default.xml: 0). */
export const MAX_APP_PRIORITY_KEY = 'yarn.cluster.max-application-priority';

export function mapConfValue(tree: Tree, key: string): string | undefined {
  const root = Node.root(tree);
  const candidates = [
    ...root.get('property').list(),
    ...root.get('properties').list(),
    ...root.get('configuration').get('property').list(),
  ];
  for (const p of candidates) {
    const name = p.get('key').present ? p.get('key') : p.get('name');
    if (name.present && name.str() === key) return p.get('value').optStr();
  }
  return undefined;
}
