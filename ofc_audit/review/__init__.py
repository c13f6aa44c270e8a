"""Play review (REVIEW.md): decisions out of hand histories, valued by rollouts and
exactly where the cards allow."""
