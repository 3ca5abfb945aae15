// A landscape in three flat bands - sky, blue hill, green field - with a round sun;
// simple and even, no atmosphere.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// a closed polygon through a list of [x, y] points
function poly(pts, curv) {
  brush.beginShape(curv);
  for (const p of pts) brush.vertex(p[0], p[1]);
  brush.endShape(CLOSE);
}

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 248, 242);
  brush.noStroke();
  wash("#bcd6ea", 200, 0.05, 0, 0);
  poly([[0, 0], [600, 0], [600, 330], [0, 330]], 0);
  wash("#f4c24a", 230, 0.05, 0, 0);
  brush.circle(450, 150, 50);
  wash("#7f9fbf", 210, 0.05, 0, 0);
  poly([[0, 360], [200, 250], [420, 320], [600, 270], [600, 420], [0, 420]], 0.5);
  wash("#6fa05a", 210, 0.05, 0, 0);
  poly([[0, 420], [600, 420], [600, 600], [0, 600]], 0);
}
