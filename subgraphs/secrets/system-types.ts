// The system secret types seeded in every site (DECISIONS §9; seed 2 "Connection secret values").
// Slugs are fixed: analytics resolves connection secrets by `analytics-<engine>`.
/** How a secret type's values are kept (seed 2 "Secret type"). */
export type Sensitivity = 'public' | 'private' | 'sensitive';
export const SENSITIVITIES: Sensitivity[] = ['public', 'private', 'sensitive'];

export interface SystemTypeDef {
  slug: string;
  name: string;
  description: string;
  sensitivity_level: Sensitivity;
  schema: Record<string, unknown>;
}

const str = { type: 'string', minLength: 1 };
const port = (def: number) => ({ type: 'integer', minimum: 1, maximum: 65535, default: def });

/** The two relational engines and the warehouse: exactly these five fields, all required. */
function relational(engine: string, label: string, conventionalPort: number): SystemTypeDef {
  return {
    slug: `analytics-${engine}`,
    name: `Analytics ${label}`,
    description: `Connection to a ${label} database for analytics queries.`,
    sensitivity_level: 'sensitive',
    schema: {
      type: 'object',
      properties: { host: str, port: port(conventionalPort), database: str, username: str, password: { type: 'string' } },
      required: ['host', 'port', 'database', 'username', 'password'],
      additionalProperties: false,
    },
  };
}

export const SYSTEM_TYPES: SystemTypeDef[] = [
  relational('postgresql', 'PostgreSQL', 5432),
  relational('mysql', 'MySQL', 3306),
  relational('redshift', 'Redshift', 5439),
  {
    slug: 'analytics-elasticsearch',
    name: 'Analytics Elasticsearch',
    description: 'Connection to an Elasticsearch cluster for analytics queries.',
    sensitivity_level: 'sensitive',
    schema: {
      type: 'object',
      properties: {
        host: { type: 'string', format: 'uri' },
        index: str,
        port: port(9200),
        username: { type: 'string' },
        password: { type: 'string' },
        api_key: { type: 'string' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        max_result_rows: { type: 'integer', minimum: 1, default: 10000 },
      },
      required: ['host', 'index'],
      additionalProperties: false,
    },
  },
  {
    slug: 'analytics-clickhouse',
    name: 'Analytics ClickHouse',
    description: 'Connection to a ClickHouse database for analytics queries.',
    sensitivity_level: 'sensitive',
    schema: {
      type: 'object',
      properties: {
        host: str,
        port: port(8443),
        database: str,
        username: str,
        password: { type: 'string' },
        secure: { type: 'boolean', default: true },
      },
      required: ['host', 'port', 'database', 'username', 'password'],
      additionalProperties: false,
    },
  },
  {
    slug: 'api-key',
    name: 'API key',
    description: 'An API key or token for a third-party service.',
    sensitivity_level: 'sensitive',
    schema: {
      type: 'object',
      properties: { api_key: str, header: { type: 'string' }, base_url: { type: 'string', format: 'uri' } },
      required: ['api_key'],
      additionalProperties: false,
    },
  },
  {
    slug: 'basic-auth',
    name: 'Basic auth',
    description: 'A username and password pair.',
    sensitivity_level: 'private',
    schema: {
      type: 'object',
      properties: { username: str, password: { type: 'string' } },
      required: ['username', 'password'],
      additionalProperties: false,
    },
  },
  {
    slug: 'json',
    name: 'JSON',
    description: 'Any JSON object (configuration, feature flags, …).',
    sensitivity_level: 'private',
    schema: { type: 'object' },
  },
];

export const SYSTEM_SLUGS = new Set(SYSTEM_TYPES.map((t) => t.slug));
