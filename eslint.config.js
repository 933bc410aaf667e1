// The TypeScript linter: typescript-eslint's recommended rules over every
// TypeScript source of the repository (the service, its tests, the bench and
// the chaos run). `npm run lint` (with prettier's check); `npm test` runs it first.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/dist/", "**/node_modules/", "go/", "bench-results/", "**/*.js", "**/*.mjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore names what is taken on purpose and left unused (a parameter a signature requires).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
      // `a && b()` and `c ? d() : e()` as statements are the code's idiom for a guarded call.
      "@typescript-eslint/no-unused-expressions": ["error", { allowShortCircuit: true, allowTernary: true }],
      // A variable a callback reads, assigned once after the callback is made, stays a `let`.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests read JSON replies whose shape is what they assert.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
