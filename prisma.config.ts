import { defineConfig } from 'prisma/config';

// Used by the Prisma CLI only (generate). The platform applies its own SQL migrations
// (prisma/migrations) at start, so no datasource URL is needed here.
export default defineConfig({
  schema: 'prisma/schema.prisma',
});
